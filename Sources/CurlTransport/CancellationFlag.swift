import Synchronization

/// A one-way switch that a task's cancellation handler flips and a libcurl progress callback reads
/// on the connection's thread, so a running transfer stops soon after its task is cancelled.
package final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// Creates a flag that is not set.
    package init() {}

    /// Sets the flag. Idempotent and callable from any thread.
    package func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// True once ``cancel()`` has been called.
    package var isCancelled: Bool {
        cancelled.load(ordering: .acquiring)
    }
}
