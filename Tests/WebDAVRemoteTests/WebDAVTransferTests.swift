import Foundation
import RemoteProtocol
import TestSupport
import Testing
import WebDAVRemote

/// Large transfers and a server that goes away in the middle of one.
@Suite(.enabled(if: WebDAVTestServer.enabled), .serialized)
struct WebDAVTransferTests {
    static let size = 256 << 20

    /// A 256 MB file goes up and comes back byte for byte, while the peak resident memory grows by
    /// less than the file (holding it in memory would cross that bound; WebDAVBenchmark prints the
    /// exact peak of the same transfers).
    ///
    /// Peak memory is process-wide and other suites run in parallel in this process, so the round
    /// trip runs in a child process (``webDAVRoundTripInChildProcess()``), where nothing else allocates.
    @Test func quarterGigabyteRoundTripsByteExactWithBoundedMemory() async throws {
        let report = try await IsolatedRoundTrip.run(childTest: "webDAVRoundTripInChildProcess")
        if Sanitizers.memoryCanBeMeasured {
            #expect(
                report.peakGrowth < Self.size,
                "peak memory grew by \(report.peakGrowth >> 20) MiB for a \(Self.size >> 20) MiB transfer"
            )
        }
        #expect(report.identical, "the downloaded file differs from the uploaded one")
    }

    /// The measured round trip; runs only as the child process of the test above.
    @Test(.enabled(if: IsolatedRoundTrip.isChild, "runs only as the child of the round-trip test"))
    func webDAVRoundTripInChildProcess() async throws {
        let store = try await WebDAVTestServer.apache.freshStore()
        try await IsolatedRoundTrip.measure(size: Self.size, seed: 11) { source, copy in
            try await store.upload(contentsOf: source, to: "large.bin")
            #expect(try await store.exists("large.bin")?.size == Int64(Self.size))
            try await store.download("large.bin", to: copy)
        }
        try await store.delete("large.bin")
        await store.close()
    }

    @Test func serverStoppedMidUploadGivesClearErrorAndRecoversAfterRestart() async throws {
        let server = try await PrivateApacheServer()
        try await server.start()
        let scratch = try TemporaryDirectory(prefix: "webdav-test")
        defer { scratch.remove() }
        let file = scratch.appending("large.bin")
        try LargeFile.write(file, bytes: Self.size, seed: 13)
        let store = try server.store()
        try await store.write(Data("previous".utf8), to: "target")

        let upload = Task { try await store.upload(contentsOf: file, to: "target") }
        // Apache spools a PUT body into a temporary file: stop the server once bytes arrive there.
        try await waitUntil("the upload's first bytes reach the server") {
            let names = try FileManager.default.contentsOfDirectory(atPath: server.davRoot.path)
            return names.contains { name in
                guard name != "target" else { return false }
                let attributes = try? FileManager.default.attributesOfItem(atPath: server.davRoot.appendingPathComponent(name).path)
                return (attributes?[.size] as? Int ?? 0) > 0
            }
        }
        server.stop()
        do {
            try await upload.value
            Issue.record("the upload succeeded although the server stopped during it")
        } catch let error as RemoteStoreError {
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.isRetryable)
        }
        await #expect(throws: RemoteStoreError.self) { _ = try await store.list(.root) }

        try await server.start()
        #expect(try await store.read("target") == Data("previous".utf8))
        try await store.upload(contentsOf: file, to: "target")
        #expect(try await store.exists("target")?.size == Int64(Self.size))
        #expect(try await store.list(.root).map(\.name) == ["target"])
        await store.close()
        server.stop()
    }
}
