import Foundation
import RemoteProtocol
import RemoteTransportSupport
import SFTPRemote
import TestSupport
import Testing

@Suite("SFTP dropped connections and cancellation", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPResilienceTests {
    /// A private sshd is killed while an upload is in flight: the upload fails with a clear,
    /// retryable error; once the server is back, the same store object works again, although
    /// every connection of its pool died with the server.
    @Test func serverStoppedMidTransferThenRestarted() async throws {
        let server = try SFTPTestServer.current()
        let privateServer = try PrivateSSHServer(copying: server.sshdConfig)
        try await privateServer.start()
        defer { privateServer.stop() }

        let url = server.uniqueURL(port: privateServer.port)
        let store = try await SFTPRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: url,
                settings: ["identity-file": server.identityFile, "host-key-fingerprint": server.hostFingerprint]
            ),
            retryPolicy: RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(50))
        )
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let source = folder.appendingPathComponent("big.bin")
        try LargeFile.write(source, bytes: 256 << 20, seed: 7)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<4 {
                group.addTask { try await store.createDirectory(at: RemotePath("warm-\(index)")) }
            }
            try await group.waitForAll()
        }

        let upload = Task { try await store.upload(contentsOf: source, to: "big.bin") }
        let stopped = await TransferWatcher.act(whenTemporaryFileIn: server.localFolder(of: url), exceeds: 1 << 20) {
            privateServer.stop()
        }
        #expect(stopped, "the upload never started")

        let error = await #expect(throws: RemoteStoreError.self) { try await upload.value }
        #expect(error?.code == .unavailable || error?.code == .timedOut)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("big.bin") == true || error?.message.contains("connect") == true)

        try await privateServer.start()
        try await store.write(Data("after the restart".utf8), to: "small.txt")
        #expect(try await store.read("small.txt") == Data("after the restart".utf8))
        #expect(try await store.exists("big.bin") == nil, "the interrupted upload never becomes visible")
        try await store.delete(.root / "small.txt")
        await store.close()
        try? FileManager.default.removeItem(at: server.localFolder(of: url))
    }

    /// Cancelling an upload stops it and removes the remote temporary file; the old content stays.
    @Test func cancelledUploadRemovesItsTemporaryFile() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        try await store.write(Data("previous".utf8), to: "target.bin")
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let source = folder.appendingPathComponent("big.bin")
        try LargeFile.write(source, bytes: 256 << 20, seed: 3)

        let upload = Task { try await store.upload(contentsOf: source, to: "target.bin") }
        let remoteFolder = server.localFolder(of: url)
        let cancelled = await TransferWatcher.act(whenTemporaryFileIn: remoteFolder, exceeds: 1 << 20) { upload.cancel() }
        #expect(cancelled, "the upload never started")

        await #expect(throws: CancellationError.self) { try await upload.value }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: remoteFolder.path)
        #expect(leftovers == ["target.bin"], "no temporary file is left behind")
        #expect(try await store.read("target.bin") == Data("previous".utf8))
        try await store.delete(.root / "target.bin")
        await store.close()
        try? FileManager.default.removeItem(at: remoteFolder)
    }

    /// Cancelling a download stops it and leaves no local file.
    @Test func cancelledDownloadLeavesNoLocalFile() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        let remoteFolder = server.localFolder(of: url)
        try LargeFile.write(remoteFolder.appendingPathComponent("big.bin"), bytes: 256 << 20, seed: 5)
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let destination = folder.appendingPathComponent("copy.bin")

        let download = Task { try await store.download("big.bin", to: destination) }
        let cancelled = await TransferWatcher.act(whenTemporaryFileIn: folder, exceeds: 1 << 20) { download.cancel() }
        #expect(cancelled, "the download never started")

        await #expect(throws: CancellationError.self) { try await download.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        await store.close()
        try? FileManager.default.removeItem(at: remoteFolder)
    }
}
