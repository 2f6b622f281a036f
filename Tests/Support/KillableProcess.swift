import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A short-lived tool started like ``TestProcess/run(_:_:environment:)`` (standard input
/// `/dev/null`, output to files) but not waited for at once: a test can watch how much it has
/// written, send it a signal at a moment it picks (SIGKILL in the middle of its work), or run
/// something else beside it, and then collect its ``TestProcess/Outcome`` with ``wait()``.
public final class KillableProcess: @unchecked Sendable {
    // @unchecked Sendable: the mutable state below is only touched under `lock`.
    private let lock = NSLock()
    private let scratch: TemporaryDirectory
    private let outPath: String
    private let errPath: String
    /// True once the child ended (it may not be reaped yet); a signal is only sent before that, so
    /// it can never reach another process that reuses the id.
    private var ended = false
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    /// The child's process id.
    public let processIdentifier: pid_t

    /// Starts `executable` (an absolute path) with `arguments` and the test process's environment
    /// plus `environment` (variables set to `nil` are removed).
    public init(_ executable: String, _ arguments: [String], environment: [String: String?] = [:]) throws {
        scratch = try TemporaryDirectory(prefix: "rollsync-killable")
        outPath = scratch.appending("stdout").path
        errPath = scratch.appending("stderr").path
        processIdentifier = try PosixSpawn.spawn([executable] + arguments, environment: environment, redirections: [
            .init(descriptor: 0, path: "/dev/null", flags: O_RDONLY),
            .init(descriptor: 1, path: outPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
            .init(descriptor: 2, path: errPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
        ])
        let pid = processIdentifier
        // The waits block: they run on their own thread, never on the cooperative pool.
        Thread.detachNewThread { [self] in
            // Wait for the end without reaping, mark it under the lock, and only then reap.
            var information = siginfo_t()
            while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            lock.withLock { ended = true }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            let waiting = lock.withLock {
                status = raw
                defer { waiters = [] }
                return waiters
            }
            for waiter in waiting { waiter.resume(returning: raw) }
        }
    }

    /// True once the tool has ended.
    public var hasEnded: Bool {
        lock.withLock { ended }
    }

    /// How many bytes the tool has written to standard error so far.
    public var standardErrorByteCount: Int {
        var information = stat()
        return stat(errPath, &information) == 0 ? Int(information.st_size) : 0
    }

    /// What the process wrote to standard output so far (a long-running tool's lines as they come).
    public var standardOutputSoFar: String {
        (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    /// What the process wrote to standard error so far.
    public var standardErrorSoFar: String {
        (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` to the tool if it is still running; returns whether it was sent.
    @discardableResult
    public func send(_ signal: Int32) -> Bool {
        lock.withLock {
            guard !ended else { return false }
            return kill(processIdentifier, signal) == 0
        }
    }

    /// Suspends until the tool ends and returns what it did: its status is 128 plus the signal
    /// number if a signal ended it.
    public func wait() async -> TestProcess.Outcome {
        let raw = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let known: Int32? = lock.withLock {
                if let status { return status }
                waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
        let exited = raw & 0x7f == 0
        return TestProcess.Outcome(
            status: exited ? (raw >> 8) & 0xff : 128 + (raw & 0x7f),
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        )
    }
}
