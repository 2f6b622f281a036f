import Foundation
import RemoteProtocol
import SFTPRemote
import TestSupport
import Testing

/// SFTP-specific behaviour beyond the contract suite.
@Suite("SFTPRemoteStore against the real sshd", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPRemoteStoreTests {
    @Test func declaresItsCapabilitiesHonestly() async throws {
        let server = try SFTPTestServer.current()
        let store = try await server.makeStore()
        #expect(store.capabilities.atomicReplace == false)
        #expect(store.capabilities.serverSideCopy == false)
        #expect(store.capabilities.modificationTimePrecision == .seconds(1))
        await store.close()
    }

    /// A process the application starts must not inherit the store's connection: a copy would
    /// keep it open after the store closed it.
    @Test func connectionsAreClosedOnExec() async throws {
        let server = try SFTPTestServer.current()
        let store = try await server.makeStore()
        _ = try await store.list(.root)
        let sockets = OpenDescriptors.sockets(connectedToPort: server.port)
        #expect(!sockets.isEmpty)
        #expect(sockets.allSatisfy { $0.closeOnExec }, "inheritable: \(sockets.filter { !$0.closeOnExec }.map(\.descriptor))")
        await store.close()
    }

    @Test func openingCreatesTheRootFolder() async throws {
        let server = try SFTPTestServer.current()
        let url = URL(string: server.uniqueURL().absoluteString + "/deeper/still")!
        let store = try await server.makeStore(url: url)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: server.localFolder(of: url).path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        await store.close()
        try FileManager.default.removeItem(at: server.localFolder(of: url).deletingLastPathComponent().deletingLastPathComponent())
    }

    @Test func modificationTimesHaveOneSecondPrecision() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        try await store.write(Data("dated".utf8), to: "dated.txt")
        let local = server.localFolder(of: url).appendingPathComponent("dated.txt")
        let written = Date(timeIntervalSince1970: 1_700_000_000.75)
        try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: local.path)
        let item = try await store.exists("dated.txt")
        #expect(item?.modificationDate == Date(timeIntervalSince1970: 1_700_000_000))
        try await store.delete(.root / "dated.txt")
        await store.close()
        try FileManager.default.removeItem(at: server.localFolder(of: url))
    }

    /// Symbolic links (which could lead out of the root) are neither listed nor reported, and
    /// deleting a directory removes a link inside it without following it.
    @Test func symbolicLinksAreLeftOutAndNeverFollowedByDelete() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let outside = scratch.url
        try Data("keep me".utf8).write(to: outside.appendingPathComponent("precious.txt"))
        try await store.createDirectory(at: "dir")
        let local = server.localFolder(of: url)
        try FileManager.default.createSymbolicLink(at: local.appendingPathComponent("dir/link"), withDestinationURL: outside)
        try await store.write(Data("a".utf8), to: "dir/file.txt")

        #expect(try await store.list("dir").map(\.name) == ["file.txt"])
        #expect(try await store.exists("dir/link") == nil)
        try await store.delete("dir")
        #expect(try await store.exists("dir") == nil)
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("precious.txt").path))
        await store.close()
        try FileManager.default.removeItem(at: local)
    }

    /// More parallel calls than pooled connections all complete (callers wait for a connection).
    @Test func parallelCallsShareThePool() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url, settings: ["connections": "2"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask { try await store.write(Data("file \(index)".utf8), to: RemotePath("f\(index).txt")) }
            }
            try await group.waitForAll()
        }
        #expect(try await store.list(.root).count == 12)
        for index in 0..<12 {
            #expect(try await store.read(RemotePath("f\(index).txt")) == Data("file \(index)".utf8))
        }
        await store.close()
        try FileManager.default.removeItem(at: server.localFolder(of: url))
    }
}
