import Synchronization

/// Hands progress events to every current subscriber's `AsyncStream`.
///
/// Events are buffered up to ``bufferLimit`` per subscriber, dropping the oldest, so a slow or
/// absent reader never slows a sync down.
final class ProgressBroadcaster: Sendable {
    /// Events kept for a subscriber that does not keep up.
    static let bufferLimit = 256

    private let subscribers = Mutex<[Int: AsyncStream<SyncProgress>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// A new stream of the events sent from now on; it ends when ``finish()`` is called or the
    /// consumer stops iterating.
    func subscribe() -> AsyncStream<SyncProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SyncProgress.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit)
        )
        let id = nextID.add(1, ordering: .relaxed).newValue
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Sends an event to every subscriber.
    func send(_ event: SyncProgress) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.yield(event)
        }
    }

    /// Ends every stream.
    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.finish()
        }
    }
}
