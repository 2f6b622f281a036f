import Foundation

/// Helpers the transfer benchmarks share: a random source file, best-of-N timing, a throughput
/// ratio line, and the process's peak memory.
public enum BenchmarkSupport {
    /// A fresh scratch directory named after `benchmark`; the caller removes it.
    public static func scratchDirectory(for benchmark: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rollsync-\(benchmark)-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `size` random bytes to `url`, 1 MiB at a time (each block differs in its first byte).
    public static func writeRandomFile(_ url: URL, size: Int) throws {
        var block = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255) })
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        for index in 0..<(size >> 20) {
            block[0] = UInt8(truncatingIfNeeded: index)
            try handle.write(contentsOf: block)
        }
        try handle.close()
    }

    /// The fastest of `runs` timings of `body`, in seconds.
    public static func best(runs: Int, _ body: () async throws -> Void) async throws -> Double {
        var fastest = Double.infinity
        for _ in 0..<runs {
            let clock = ContinuousClock()
            let elapsed = try await clock.measure { try await body() }
            let (seconds, attoseconds) = elapsed.components
            fastest = min(fastest, Double(seconds) + Double(attoseconds) / 1e18)
        }
        return fastest
    }

    /// Prints one line: both throughputs for `size` bytes and the ratio baseline time / RollingSync
    /// time, against the 0.8 target.
    public static func report(_ name: String, size: Int, rollingSync: Double, baseline: Double, baselineName: String) {
        let megabytes = Double(size) / 1_048_576
        let ratio = baseline / rollingSync
        print(
            String(
                format: "%@ %d MiB: RollingSync %.0f MiB/s, %@ %.0f MiB/s, ratio %.2f (target >= 0.80) %@",
                name, size >> 20, megabytes / rollingSync, baselineName, megabytes / baseline, ratio, ratio >= 0.8 ? "OK" : "BELOW TARGET"
            )
        )
    }

    /// The peak resident memory of this process so far, in MiB.
    public static func peakResidentMiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss / 1024
    }
}
