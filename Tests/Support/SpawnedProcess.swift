import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A long-running helper process (sshd, ssh-agent) that a test starts, uses while it runs, and
/// stops; started with posix_spawn (see ``PosixSpawn`` for why not Foundation's `Process`).
public final class SpawnedProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` is only touched by the test that owns the process, serially.
    private var pid: pid_t?

    /// Starts `arguments[0]` (an absolute path) with `arguments` and the test process's
    /// environment, its standard error discarded.
    public init(_ arguments: [String]) throws {
        pid = try PosixSpawn.spawn(arguments, environment: [:], redirections: [
            .init(descriptor: 2, path: "/dev/null", flags: O_WRONLY)
        ])
    }

    deinit {
        stop()
    }

    /// The process id while it runs, `nil` once stopped.
    public var processIdentifier: pid_t? { pid }

    /// Kills the process and every process below it, and reaps it. Idempotent.
    public func stop() {
        guard let root = pid else { return }
        for child in Self.descendants(of: root) { kill(child, SIGKILL) }
        kill(root, SIGKILL)
        waitpid(root, nil, 0)
        pid = nil
    }

    /// Sends the process SIGTERM, so it can stop its own children and clean up (Apache drops its
    /// connections at once), and waits until it exits. Idempotent.
    public func terminate() {
        guard let root = pid else { return }
        kill(root, SIGTERM)
        waitpid(root, nil, 0)
        pid = nil
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
