import Foundation
import RemoteProtocol
import SFTPRemote
import Testing

@Suite("SFTP large files", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPLargeFileTests {
    static let size = 256 << 20
    static let reportVariable = "ROLLSYNC_SFTP_ROUND_TRIP_REPORT"

    /// A 256 MB file goes up and comes back byte for byte, while the peak resident memory grows by
    /// far less than the file (transfers stream through one buffer).
    ///
    /// Peak memory is process-wide and other suites run in parallel in this process, so the round
    /// trip runs in a child process (this test binary, filtered to ``roundTripInIsolation()``),
    /// where nothing else allocates.
    @Test func twoHundredFiftySixMegabyteFileRoundTripsWithBoundedMemory() async throws {
        _ = try SFTPTestServer.current()
        let folder = try TestProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report.txt")
        var environment = ProcessInfo.processInfo.environment
        environment[Self.reportVariable] = report.path
        try await TestProcess.run(
            "/proc/self/exe", ["--testing-library", "swift-testing", "--filter", "roundTripInIsolation"], environment: environment
        )
        let fields = try String(contentsOf: report, encoding: .utf8).split(separator: " ")
        let identical = try #require(fields.first) == "identical"
        let growth = try #require(Int(fields.last ?? ""))
        #expect(identical, "the downloaded file differs from the uploaded one")
        #expect(growth < Self.size / 8, "peak resident memory grew by \(growth >> 20) MiB for a \(Self.size >> 20) MiB file")
    }

    /// The measured round trip; runs only as the child process of the test above, and writes
    /// `identical|different <peak growth in bytes>` to the report file.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[reportVariable] != nil, "runs only as the child of the round-trip test"))
    func roundTripInIsolation() async throws {
        let reportPath = try #require(ProcessInfo.processInfo.environment[Self.reportVariable])
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        let folder = try TestProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.bin")
        let copy = folder.appendingPathComponent("copy.bin")
        try LargeFile.write(source, bytes: Self.size, seed: 42)

        let before = try PeakMemory.resetAndRead()
        try await store.upload(contentsOf: source, to: "big.bin")
        #expect(try await store.exists("big.bin")?.size == Int64(Self.size))
        try await store.download("big.bin", to: copy)
        let growth = try PeakMemory.read() - before

        let verdict = try LargeFile.identical(source, copy) ? "identical" : "different"
        try "\(verdict) \(growth)".write(toFile: reportPath, atomically: true, encoding: .utf8)
        try await store.delete(.root / "big.bin")
        await store.close()
        try? FileManager.default.removeItem(at: server.localFolder(of: url))
    }
}
