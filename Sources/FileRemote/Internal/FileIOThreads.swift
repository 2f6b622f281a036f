import RemoteTransportSupport
import Synchronization

/// A few dedicated OS threads that run FileRemote's blocking system calls, so that no file-system
/// call ever blocks Swift's cooperative thread pool.
///
/// Why dedicated threads rather than `DispatchQueue.global()`: on Linux the global dispatch queues
/// are the same threads that run Swift tasks, so blocking there is blocking the cooperative pool.
/// Each thread here is owned by one ``Worker`` actor whose executor is a
/// `DedicatedThreadExecutor`. Work is handed out round-robin in small units (one metadata call
/// sequence, or one chunk of a transfer), so a long transfer interleaves with other calls instead
/// of holding a thread for its whole length. A hung file system (a dead network mount) can still
/// hold the threads; it never holds the cooperative pool.
///
/// The threads are shared by every ``FileRemoteStore`` of the process (``shared``) and live as
/// long as the process, as `NIOThreadPool.singleton` does.
final class FileIOThreads: Sendable {
    /// The process-wide threads.
    static let shared = FileIOThreads(threadCount: 4)

    /// The size of each thread's transfer buffer: one chunk of an upload, download or copy.
    static let chunkByteCount = 1 << 20

    private let workers: [Worker]
    private let nextWorker = Atomic<UInt>(0)

    /// Starts `threadCount` threads.
    init(threadCount: Int) {
        precondition(threadCount > 0, "FileIOThreads needs at least one thread")
        workers = (0..<threadCount).map { Worker(name: "rollsync-file-\($0)") }
    }

    /// Runs `body` on one of the threads and returns its result.
    ///
    /// `body` receives that thread's transfer buffer (``chunkByteCount`` bytes), valid only during
    /// the call. It runs inside the calling task, so `Task.isCancelled` reflects the caller.
    func run<Result: Sendable>(
        _ body: @Sendable (_ buffer: UnsafeMutableRawBufferPointer) throws -> Result
    ) async throws -> Result {
        let index = Int(nextWorker.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(workers.count))
        return try await workers[index].run(body)
    }

    /// One thread and its transfer buffer.
    private actor Worker {
        private let executor: DedicatedThreadExecutor
        // nonisolated(unsafe) only so that deinit may free it: every other use is by this actor's
        // jobs, which run one at a time on its thread.
        nonisolated(unsafe) private let buffer: UnsafeMutableRawBufferPointer

        init(name: String) {
            executor = DedicatedThreadExecutor(name: name)
            buffer = .allocate(byteCount: FileIOThreads.chunkByteCount, alignment: 16)
        }

        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        func run<Result: Sendable>(
            _ body: @Sendable (_ buffer: UnsafeMutableRawBufferPointer) throws -> Result
        ) throws -> Result {
            try body(buffer)
        }

        deinit {
            buffer.deallocate()
            executor.shutdown()
        }
    }
}
