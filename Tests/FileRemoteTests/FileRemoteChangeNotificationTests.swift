import Foundation
import RemoteProtocol
import Synchronization
import TestSupport
import Testing

@testable import FileRemote

#if canImport(Glibc)
import Glibc
#endif

/// `changeNotifications(in:)` through inotify: a write, a move in or a deletion in the directory
/// is notified; nothing is for a missing directory; the watch's descriptors close when its
/// consumer stops.
struct FileRemoteChangeNotificationTests {
    /// The inotify descriptors this process holds.
    static func inotifyDescriptors() -> Set<Int32> {
        Set(OpenDescriptors.all().filter { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) == "anon_inode:inotify"
        })
    }

    /// Counts what a consumer task received.
    final class Counter: Sendable {
        let count = Mutex(0)
        func increment() -> Int { count.withLock { $0 += 1; return $0 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test("changes in the directory are notified; the watch closes its descriptors when its consumer is cancelled", .timeLimit(.minutes(10)))
    func changesAreNotified() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = try FileRemoteStore(root: folder.url)
        try await store.createDirectory(at: "RecentSyncs")
        let before = Self.inotifyDescriptors()
        let notifications = try #require(store.changeNotifications(in: "RecentSyncs"))
        let watch = Self.inotifyDescriptors().subtracting(before)
        #expect(!watch.isEmpty)
        let received = Counter()
        let consumer = Task {
            for await _ in notifications { _ = received.increment() }
        }
        // Changes may be coalesced into one notification: keep changing until three came.
        var round = 1
        try await waitUntil("three notifications") {
            if received.value < 3 {
                try FileManager.default.createDirectory(at: folder.url.appending(path: "RecentSyncs/dir-\(round)"), withIntermediateDirectories: false)
                round += 1
            }
            return received.value >= 3
        }
        consumer.cancel()
        await consumer.value
        try await waitUntil("the watch's descriptors are closed") { Self.inotifyDescriptors().isDisjoint(with: watch) }
    }

    @Test("a missing directory, or a file, gives no notifications")
    func missingDirectoryGivesNone() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = try FileRemoteStore(root: folder.url)
        #expect(store.changeNotifications(in: "missing") == nil)
        try await store.write(Data("x".utf8), to: "file")
        #expect(store.changeNotifications(in: "file") == nil)
    }
}
