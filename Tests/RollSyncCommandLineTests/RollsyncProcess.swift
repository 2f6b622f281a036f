import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `rollsync` binary as a separate process and collects its exit code and output.
///
/// Started with posix_spawn rather than Foundation's `Process`: on Linux, Foundation's child
/// monitor can block on a long-running child of another suite (sshd, ssh-agent) when one exits.
/// The child's standard input is `/dev/null`, so it can never wait on a prompt.
struct RollsyncProcess {
    /// What a run produced.
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

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
        throw Failure(description: "the rollsync binary was not found next to \(executable.path); run swift build --build-tests")
    }

    /// Runs `rollsync arguments…` with the test process's environment plus `environment`
    /// (variables set to `nil` are removed), and waits for it to end.
    static func run(_ arguments: [String], environment: [String: String?] = [:]) async throws -> Outcome {
        let binary = try binary()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rollsync-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path

        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment { variables[key] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var child: pid_t = 0
        let spawned = posix_spawn(&child, binary, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(binary): \(String(cString: strerror(spawned)))")
        }
        let pid = child
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

    /// A failure of the helper itself.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}

extension RollsyncProcess.Outcome {
    /// The JSON objects printed on standard output, one per line.
    func jsonObjects() throws -> [[String: Any]] {
        try standardOutput.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }
}
