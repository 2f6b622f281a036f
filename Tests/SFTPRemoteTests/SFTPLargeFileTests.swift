import Foundation
import RemoteProtocol
import SFTPRemote
import TestSupport
import Testing

@Suite("SFTP large files", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPLargeFileTests {
    static let size = 256 << 20

    /// A 256 MB file goes up and comes back byte for byte, while the peak resident memory grows by
    /// far less than the file (transfers stream through one buffer).
    ///
    /// Peak memory is process-wide and other suites run in parallel in this process, so the round
    /// trip runs in a child process (``sftpRoundTripInChildProcess()``), where nothing else allocates.
    @Test func twoHundredFiftySixMegabyteFileRoundTripsWithBoundedMemory() async throws {
        _ = try SFTPTestServer.current()
        let report = try await IsolatedRoundTrip.run(childTest: "sftpRoundTripInChildProcess")
        #expect(report.identical, "the downloaded file differs from the uploaded one")
        if Sanitizers.memoryCanBeMeasured {
            #expect(
                report.peakGrowth < Self.size / 8,
                "peak resident memory grew by \(report.peakGrowth >> 20) MiB for a \(Self.size >> 20) MiB file"
            )
        }
    }

    /// The measured round trip; runs only as the child process of the test above.
    @Test(.enabled(if: IsolatedRoundTrip.isChild, "runs only as the child of the round-trip test"))
    func sftpRoundTripInChildProcess() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        try await IsolatedRoundTrip.measure(size: Self.size, seed: 42) { source, copy in
            try await store.upload(contentsOf: source, to: "big.bin")
            #expect(try await store.exists("big.bin")?.size == Int64(Self.size))
            try await store.download("big.bin", to: copy)
        }
        try await store.delete(.root / "big.bin")
        await store.close()
        try? FileManager.default.removeItem(at: server.localFolder(of: url))
    }
}
