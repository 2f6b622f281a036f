import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A long-running helper process (sshd, ssh-agent) started with posix_spawn, not Foundation's
/// `Process`: on Linux, Foundation's child monitor blocks in `wait4` on a long-running child when
/// another child exits, which would stall every other test that runs a tool.
final class SpawnedProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` is only touched by the test that owns the process, serially.
    private var pid: pid_t?

    /// Starts `arguments[0]` (an absolute path) with `arguments`, its standard error discarded.
    init(_ arguments: [String]) throws {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var child: pid_t = 0
        guard posix_spawn(&child, arguments[0], &actions, nil, argv, environ) == 0 else {
            throw TestProcess.Failure(description: "cannot start \(arguments[0])")
        }
        pid = child
    }

    deinit {
        stop()
    }

    /// The process id while it runs.
    var processIdentifier: pid_t? { pid }

    /// Kills the process and every process below it, and reaps it. Idempotent.
    func stop() {
        guard let root = pid else { return }
        for child in Self.descendants(of: root) { kill(child, SIGKILL) }
        kill(root, SIGKILL)
        waitpid(root, nil, 0)
        pid = nil
    }

    /// Waits (at most 30 seconds) until `condition` holds while the process runs.
    func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if condition() { return }
            await Task.yield()
        }
        throw TestProcess.Failure(description: "timed out waiting until \(what)")
    }

    private static func descendants(of root: pid_t) -> [pid_t] {
        var parents: [pid_t: pid_t] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
                let parent = pid_t(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
            else { continue }
            parents[pid] = parent
        }
        var result: [pid_t] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            result += children
            frontier += children
        }
        return result
    }
}
