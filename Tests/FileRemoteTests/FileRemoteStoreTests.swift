import Foundation
import RemoteProtocol
import TestSupport
import Testing

@testable import FileRemote

#if canImport(Glibc)
import Glibc
#endif

/// Opening from URLs, the root folder, temporary files and modification times.
struct FileRemoteStoreTests {
    // MARK: URLs and the registry

    @Test func registryOpensFileURLsWithThisBackend() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let registry = RemoteStoreRegistry()
        registry.register(FileRemoteStore.self)
        let url = try #require(URL(string: "file://\(folder.url.path(percentEncoded: true))"))

        let store = try await registry.makeStore(for: url)
        try await store.write(Data("hello".utf8), to: "greeting.txt")

        #expect(store is FileRemoteStore)
        #expect(try folder.read("greeting.txt") == "hello")
    }

    @Test func localhostHostAndPercentEncodedPathsAreAccepted() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.appending("my sync"), withIntermediateDirectories: false)
        let url = try #require(URL(string: "file://localhost\(folder.url.path(percentEncoded: true))my%20sync"))

        let store = try FileRemoteStore(root: url)
        try await store.write(Data("x".utf8), to: "file")

        #expect(try folder.read("my sync/file") == "x")
    }

    @Test(arguments: [
        "file://fileserver/share/sync",
        "http://example.com/sync",
        "file:relative/folder",
        "file:///tmp?mode=fast",
        "file:///tmp#section",
        "file://alice@localhost/tmp",
        "file://localhost:8080/tmp",
    ])
    func urlsOtherThanAbsoluteLocalFolderPathsAreUnsupported(_ text: String) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: RemoteStoreError.self) { try FileRemoteStore(root: url) }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("file:///absolute/path") == true)
    }

    @Test func urlRelativeToABaseURLIsUnsupported() throws {
        let url = URL(filePath: "sync", directoryHint: .isDirectory, relativeTo: URL(filePath: "/tmp/"))
        let error = #expect(throws: RemoteStoreError.self) { try FileRemoteStore(root: url) }
        #expect(error?.code == .unsupported)
    }

    @Test func missingRootFolderIsNotFoundAndNotCreated() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let missing = folder.appending("not-mounted")

        let error = #expect(throws: RemoteStoreError.self) { try FileRemoteStore(root: missing) }

        #expect(error?.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: missing.path(percentEncoded: false)))
    }

    @Test func rootThatIsAFileIsNotADirectory() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("x", to: "file")

        let error = #expect(throws: RemoteStoreError.self) { try FileRemoteStore(root: folder.appending("file")) }

        #expect(error?.code == .notADirectory)
    }

    @Test func rootThatVanishesAfterOpeningIsUnavailableRatherThanEmpty() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("x", to: "share/file")
        let store = try FileRemoteStore(root: folder.appending("share"))
        try FileManager.default.removeItem(at: folder.appending("share"))

        await expectRemoteError(.unavailable) { _ = try await store.exists(.root) }
        await expectRemoteError(.unavailable) { _ = try await store.exists("file") }
        await expectRemoteError(.unavailable) { _ = try await store.list(.root) }
        await expectRemoteError(.unavailable) { try await store.delete("file") }
    }

    @Test func capabilitiesDeclareServerSideCopyAndAtomicReplace() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let capabilities = try FileRemoteStore(root: folder.url).capabilities
        #expect(capabilities.serverSideCopy)
        #expect(capabilities.atomicReplace)
        #expect(capabilities.modificationTimePrecision == .microseconds(1))
    }

    // MARK: Temporary files

    @Test func listHidesLeftoverTemporaryFilesAndUnaddressableNames() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("partial", to: "\(RemotePath.reservedTemporaryPrefix)left-by-a-crash")
        try folder.write("decomposed", to: "cafe\u{301}")  // NFD: no RemotePath names it
        try folder.write("kept", to: "kept.txt")
        let store = try FileRemoteStore(root: folder.url)

        let names = try await store.list(.root).map(\.name)

        #expect(names == ["kept.txt"])
    }

    @Test func uploadIsInvisibleWhileInFlightAndCancellationRemovesItsTemporaryFile() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("old", to: "remote/data/file.bin")
        let fifo = folder.appending("source.fifo")
        #expect(mkfifo(fifo.path(percentEncoded: false), 0o600) == 0)
        // Private threads: a chunk read blocks on the FIFO, and the test's own calls must not queue behind it.
        let store = try FileRemoteStore(root: folder.appending("remote"), threads: FileIOThreads(threadCount: 8))
        let writer = FIFOWriter()

        let upload = Task { try await store.upload(contentsOf: fifo, to: "data/file.bin") }
        try await writer.open(fifo)
        // Returns only once the upload has read all but one pipe buffer of it into its temporary file.
        try await writer.write(byteCount: 2 << 20)

        let onDisk = try folder.names(in: "remote/data")
        #expect(onDisk.count == 2)
        #expect(onDisk.contains { $0.hasPrefix(RemotePath.reservedTemporaryPrefix) })
        #expect(try await store.list("data").map(\.name) == ["file.bin"])
        #expect(try await store.exists("data/file.bin")?.size == 3)

        upload.cancel()
        try await writer.write(byteCount: 1)  // wakes the blocked read; the next check sees the cancellation
        await writer.close()
        await #expect(throws: CancellationError.self) { try await upload.value }

        #expect(try folder.names(in: "remote/data") == ["file.bin"])
        #expect(try folder.read("remote/data/file.bin") == "old")
    }

    @Test func uploadOfMissingLocalFileLeavesNoTemporaryFile() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("old", to: "remote/file")
        let store = try FileRemoteStore(root: folder.appending("remote"))

        let error = await #expect(throws: RemoteStoreError.self) {
            try await store.upload(contentsOf: folder.appending("missing"), to: "file")
        }

        #expect(error?.code == .localFile)
        #expect(try folder.names(in: "remote") == ["file"])
        #expect(try folder.read("remote/file") == "old")
    }

    @Test func downloadReplacesTheLocalFileThroughATemporaryFileBesideIt() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("remote content", to: "remote/file")
        try folder.write("stale", to: "local/file")
        let store = try FileRemoteStore(root: folder.appending("remote"))

        try await store.download("file", to: folder.appending("local/file"))
        let missing = await #expect(throws: RemoteStoreError.self) {
            try await store.download("absent", to: folder.appending("local/other"))
        }

        #expect(try folder.read("local/file") == "remote content")
        #expect(missing?.code == .notFound)
        #expect(try folder.names(in: "local") == ["file"])
    }

    @Test func leftoverTemporaryFilesOlderThanTheAgeAreRemovedEverywhereElseKept() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let prefix = RemotePath.reservedTemporaryPrefix
        for stale in ["\(prefix)a", "deep/er/\(prefix)b"] {
            try folder.write("crashed", to: stale)
            try FileManager.default.setAttributes(
                [.modificationDate: Date.now.addingTimeInterval(-7200)],
                ofItemAtPath: folder.appending(stale).path(percentEncoded: false)
            )
        }
        try folder.write("in flight", to: "deep/\(prefix)c")
        try folder.write("data", to: "deep/er/data")
        let store = try FileRemoteStore(root: folder.url)

        let removed = try await store.removeLeftoverTemporaryFiles(olderThan: .seconds(3600))

        #expect(removed == 2)
        #expect(try folder.names() == ["deep"])
        #expect(try folder.names(in: "deep") == ["\(prefix)c", "er"])
        #expect(try folder.names(in: "deep/er") == ["data"])
    }

    // MARK: Modification times

    @Test func modificationTimeComesFromStatWithSubSecondPrecision() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("x", to: "file")
        var times = [
            timespec(tv_sec: 1_700_000_000, tv_nsec: 0),
            timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
        ]
        #expect(utimensat(AT_FDCWD, folder.appending("file").path(percentEncoded: false), &times, 0) == 0)
        let store = try FileRemoteStore(root: folder.url)

        let date = try #require(try await store.exists("file")?.modificationDate)

        #expect(abs(date.timeIntervalSince1970 - 1_700_000_000.123_456_789) < 0.000_001)
    }
}
