import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a short-lived command-line tool for a test (ssh-keygen, the built `rollsync`, this test
/// binary filtered to one test) and collects its exit status and output.
///
/// The tool's standard input is `/dev/null`, so it can never wait on a prompt; its output goes to
/// files, so any amount of it is captured without a reader thread.
public enum TestProcess {
    /// What a run produced.
    public struct Outcome: Sendable {
        /// The exit status, or 128 plus the signal number if a signal ended the tool.
        public var status: Int32
        /// Everything the tool wrote to standard output.
        public var standardOutput: String
        /// Everything the tool wrote to standard error.
        public var standardError: String
    }

    /// Runs `executable` (an absolute path) with `arguments` and the test process's environment
    /// plus `environment` (variables set to `nil` are removed), suspending until it ends.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:]
    ) async throws -> Outcome {
        let scratch = try TemporaryDirectory(prefix: "rollsync-run")
        defer { scratch.remove() }
        let outPath = scratch.appending("stdout").path
        let errPath = scratch.appending("stderr").path
        let pid = try PosixSpawn.spawn([executable] + arguments, environment: environment, redirections: [
            .init(descriptor: 0, path: "/dev/null", flags: O_RDONLY),
            .init(descriptor: 1, path: outPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
            .init(descriptor: 2, path: errPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
        ])
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            // waitpid blocks: it runs on its own thread, never on the cooperative pool.
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        let exited = status & 0x7f == 0
        return Outcome(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        )
    }

    /// Runs the tool like ``run(_:_:environment:)`` and returns its standard output; throws if it
    /// exits with a status other than 0 (the error names the tool and the status, not its
    /// arguments or output, which may hold a fixture's passphrase).
    @discardableResult
    public static func runChecked(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:]
    ) async throws -> String {
        let outcome = try await run(executable, arguments, environment: environment)
        guard outcome.status == 0 else {
            throw TestSupportError("\(executable) exited with status \(outcome.status)")
        }
        return outcome.standardOutput
    }
}
