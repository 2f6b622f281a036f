import Foundation

/// A large-file round trip (upload, then download) whose peak memory growth is measured in a
/// child process of the current test binary, where no other suite allocates at the same time.
///
/// A backend's tests need two Swift Testing tests: the parent calls ``run(childTest:)`` with the
/// name of the child, and the child, enabled only if ``isChild`` holds, calls
/// ``measure(size:seed:transfer:)``. The child writes its result to a report file the parent
/// named in the environment; the parent reads it back as a ``Report``.
public enum IsolatedRoundTrip {
    /// The environment variable naming the report file; set only in the child.
    static let reportVariable = "ROLLSYNC_ISOLATED_ROUND_TRIP_REPORT"

    /// True in the child process started by ``run(childTest:)``.
    public static var isChild: Bool {
        ProcessInfo.processInfo.environment[reportVariable] != nil
    }

    /// What the child measured.
    public struct Report: Sendable {
        /// True if the downloaded file holds exactly the uploaded bytes.
        public let identical: Bool
        /// How much the peak resident memory grew during the upload and the download, in bytes.
        public let peakGrowth: Int
    }

    /// Runs this test binary filtered to `childTest` (a test function name, unique in the whole
    /// test binary) and returns its report. Throws if the child test fails or writes no report.
    public static func run(childTest: String) async throws -> Report {
        let directory = try TemporaryDirectory(prefix: "rollsync-round-trip-report")
        defer { directory.remove() }
        let report = directory.appending("report.txt")
        let outcome = try await TestProcess.run(
            "/proc/self/exe",
            ["--testing-library", "swift-testing", "--filter", childTest],
            environment: [reportVariable: report.path]
        )
        guard outcome.status == 0 else {
            throw TestSupportError("the child test \(childTest) exited with status \(outcome.status)")
        }
        guard let text = try? String(contentsOf: report, encoding: .utf8) else {
            throw TestSupportError("the child test \(childTest) wrote no report; is its name right and is it enabled by IsolatedRoundTrip.isChild?")
        }
        let fields = text.split(separator: " ")
        guard fields.count == 2, let growth = Int(fields[1]) else {
            throw TestSupportError("unreadable round-trip report: \(text)")
        }
        return Report(identical: fields[0] == "identical", peakGrowth: growth)
    }

    /// In the child: writes a `size`-byte file from `seed`, resets the peak memory, lets `transfer`
    /// upload the file at its first argument and download it to its second, and reports whether the
    /// copy is identical and how much the peak grew. Throws outside the child.
    public static func measure(size: Int, seed: UInt64, transfer: (_ source: URL, _ copy: URL) async throws -> Void) async throws {
        guard let reportPath = ProcessInfo.processInfo.environment[reportVariable] else {
            throw TestSupportError("IsolatedRoundTrip.measure runs only in the child process of IsolatedRoundTrip.run")
        }
        let directory = try TemporaryDirectory(prefix: "rollsync-round-trip")
        defer { directory.remove() }
        let source = directory.appending("source.bin")
        let copy = directory.appending("copy.bin")
        try LargeFile.write(source, bytes: size, seed: seed)

        let before = try PeakMemory.resetAndRead()
        try await transfer(source, copy)
        let growth = try PeakMemory.read() - before

        let verdict = try LargeFile.identical(source, copy) ? "identical" : "different"
        try "\(verdict) \(growth)".write(toFile: reportPath, atomically: true, encoding: .utf8)
    }
}
