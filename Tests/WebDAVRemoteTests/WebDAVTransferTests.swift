import Foundation
import RemoteProtocol
import Testing
import WebDAVRemote

/// Large transfers and a server that goes away in the middle of one.
@Suite(.enabled(if: WebDAVTestServer.enabled), .serialized)
struct WebDAVTransferTests {
    /// The peak resident memory of this process, in bytes.
    private static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    @Test func quarterGigabyteRoundTripsByteExactWithBoundedMemory() async throws {
        let size = 256 << 20
        let file = try LargeFile(size: size)
        defer { file.remove() }
        let downloaded = try LocalScratchFile()
        defer { downloaded.remove() }
        let store = try await WebDAVTestServer.apache.freshStore()
        let peakBefore = Self.peakResidentBytes()

        try await store.upload(contentsOf: file.url, to: "large.bin")
        #expect(try await store.exists("large.bin")?.size == Int64(size))
        try await store.download("large.bin", to: downloaded.url)

        // The peak is process-wide and other suites run in parallel, so the bound is the file's own
        // size: holding the file in memory would cross it. WebDAVBenchmark, which runs alone,
        // prints the exact peak of the same transfers.
        let growth = Self.peakResidentBytes() - peakBefore
        #expect(growth < size, "peak memory grew by \(growth >> 20) MiB for a \(size >> 20) MiB transfer")
        #expect(try file.hasSameContent(as: downloaded.url))
        try await store.delete("large.bin")
        await store.close()
    }

    @Test func serverStoppedMidUploadGivesClearErrorAndRecoversAfterRestart() async throws {
        let server = try PrivateApacheServer()
        try await server.start()
        let file = try LargeFile(size: 256 << 20)
        defer { file.remove() }
        let store = try server.store()
        try await store.write(Data("previous".utf8), to: "target")

        let upload = Task { try await store.upload(contentsOf: file.url, to: "target") }
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
        try await store.upload(contentsOf: file.url, to: "target")
        #expect(try await store.exists("target")?.size == Int64(file.size))
        #expect(try await store.list(.root).map(\.name) == ["target"])
        await store.close()
        server.stop()
    }
}
