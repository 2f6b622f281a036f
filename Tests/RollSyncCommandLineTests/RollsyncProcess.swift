import Foundation
import TestSupport
import Testing

/// Runs the built `rollsync` binary as a separate process and collects its exit code and output.
enum RollsyncProcess {
    /// The binary: `ROLLSYNC_BINARY` if set, else `rollsync` next to the test bundle (both are in
    /// the build's products directory; the test target depends on the executable so it is built).
    static func binary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["ROLLSYNC_BINARY"] { return path }
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var directory = executable.deletingLastPathComponent()
        // The test bundle may be a directory (.xctest) with the binary inside it.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("rollsync").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw TestSupportError("the rollsync binary was not found next to \(executable.path); run swift build --build-tests")
    }

    /// Runs `rollsync arguments…` with the test process's environment plus `environment`
    /// (variables set to `nil` are removed), its standard input `/dev/null`, and waits for it to end.
    static func run(_ arguments: [String], environment: [String: String?] = [:]) async throws -> TestProcess.Outcome {
        try await TestProcess.run(try binary(), arguments, environment: environment)
    }
}

extension TestProcess.Outcome {
    /// The JSON objects printed on standard output, one per line.
    func jsonObjects() throws -> [[String: Any]] {
        try standardOutput.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }
}
