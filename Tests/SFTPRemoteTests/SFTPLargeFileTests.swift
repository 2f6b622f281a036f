import Foundation
import RemoteProtocol
import SFTPRemote
import Testing

@Suite("SFTP large files", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPLargeFileTests {
    /// A 256 MB file goes up and comes back byte for byte, while the process's peak resident
    /// memory grows by far less than the file (transfers stream through one buffer).
    ///
    /// The peak is process-wide and other suites run in parallel in the same process, so the bound
    /// is half the file: alone, the growth stays under 32 MiB; a store that held the file in
    /// memory would grow by at least its 256 MiB.
    @Test func twoHundredFiftySixMegabyteFileRoundTripsWithBoundedMemory() async throws {
        let server = try SFTPTestServer.current()
        let size = 256 << 20
        let url = server.uniqueURL()
        let store = try await server.makeStore(url: url)
        let folder = try TestProcess.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.bin")
        let copy = folder.appendingPathComponent("copy.bin")
        try LargeFile.write(source, bytes: size, seed: 42)

        let before = try PeakMemory.resetAndRead()
        try await store.upload(contentsOf: source, to: "big.bin")
        #expect(try await store.exists("big.bin")?.size == Int64(size))
        try await store.download("big.bin", to: copy)
        let growth = try PeakMemory.read() - before

        #expect(try LargeFile.identical(source, copy))
        #expect(growth < size / 2, "peak resident memory grew by \(growth >> 20) MiB for a \(size >> 20) MiB file")
        try await store.delete(.root / "big.bin")
        await store.close()
        try? FileManager.default.removeItem(at: server.localFolder(of: url))
    }
}

/// The process's peak resident set size (`VmHWM` in /proc/self/status), which Linux lets a
/// process reset by writing 5 to /proc/self/clear_refs.
enum PeakMemory {
    static func resetAndRead() throws -> Int {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return try read()
    }

    static func read() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes * 1024
    }
}
