import Foundation

/// A serial executor that runs every job on one dedicated OS thread, outside Swift's cooperative
/// thread pool.
///
/// Network backends wrap blocking C libraries (libssh2, libcurl) whose calls may wait for seconds.
/// Running them on the cooperative pool would starve every other task, so each C handle is owned
/// by an actor whose executor is one of these:
///
/// ```swift
/// actor Connection {
///     private let executor = DedicatedThreadExecutor(name: "sftp-1")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
///     func read() -> Int { blocking_c_call(handle) }   // runs on the dedicated thread
///     deinit { executor.shutdown() }
/// }
/// ```
///
/// Jobs run one at a time in the order they were enqueued. ``shutdown()`` lets the thread finish
/// the jobs already queued and then exit; jobs enqueued after that still run (on the caller's
/// thread) so that no task is ever left suspended forever.
public final class DedicatedThreadExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `isShutDown` and `thread` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isShutDown = false
    private var thread: pthread_t?

    /// Starts the thread. `name` is given to the thread for debuggers (Linux keeps only its first
    /// 15 bytes, so it is cut to that).
    public init(name: String) {
        let shortName = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let thread = Thread { [self] in
            // Set from inside the thread: Foundation on Linux ignores a name set before start. The
            // name is for debuggers only; nothing relies on it.
            Thread.current.name = shortName
            condition.lock()
            self.thread = pthread_self()
            condition.unlock()
            runLoop()
        }
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if isShutDown {
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// True when called on this executor's thread (for example from a method of an actor it runs).
    public var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Stops the program unless called on this executor's thread. Lets
    /// `actor.assumeIsolated { … }` work from synchronous code, such as a C callback, that runs on
    /// the executor's thread.
    public func checkIsolated() {
        precondition(isCurrentThread, "expected to run on the DedicatedThreadExecutor's thread")
    }

    /// Stops the thread once the queued jobs have run. Idempotent.
    public func shutdown() {
        condition.lock()
        isShutDown = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }

    /// Waits for the next job; `nil` once shut down and drained.
    private func nextJob() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !isShutDown {
            condition.wait()
        }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}
