import Logging
import RemoteProtocol

/// How a network backend retries a call that failed with a retryable ``RemoteStoreError``
/// (``RemoteStoreError/isRetryable``: unavailable, timed out, rate limited).
///
/// Delays grow exponentially from ``initialDelay`` up to ``maximumDelay``. Only idempotent calls
/// may be retried; the caller decides which those are. Cancellation stops the retries at once.
/// Each retry is logged at `debug` to ``logger`` (the error's code and path, the attempt, the
/// delay); by default nowhere.
public struct RetryPolicy: Sendable {
    /// How many times the call is made at most (1 = no retry).
    public var maximumAttempts: Int
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// The longest delay between two attempts.
    public var maximumDelay: Duration
    /// Where retries are logged.
    public var logger = Logger(label: "rollingsync.retry", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Creates a policy.
    public init(maximumAttempts: Int = 4, initialDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(5)) {
        precondition(maximumAttempts >= 1, "a retry policy needs at least one attempt")
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// No retries at all.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The delay before attempt `attempt` (2 for the first retry).
    public func delay(beforeAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 2..<max(attempt, 2) {
            delay = min(delay * 2, maximumDelay)
        }
        return min(delay, maximumDelay)
    }

    /// Runs `operation`, retrying it while it throws a retryable ``RemoteStoreError`` and attempts
    /// remain. `beforeRetry` runs before each retry (a backend reconnects there). The requests of
    /// every attempt after the first count as retried in ``RemoteProtocol/RemoteRequestCounter``.
    ///
    /// - Throws: the last error, `CancellationError` if the task is cancelled while waiting.
    public func run<Result>(
        _ operation: () async throws -> Result,
        beforeRetry: (RemoteStoreError) async -> Void = { _ in }
    ) async throws -> Result {
        try await run(operation, retryingWhen: \.isRetryable, beforeRetry: beforeRetry)
    }

    /// Runs `operation`, retrying it while it throws a ``RemoteStoreError`` for which
    /// `shouldRetry` is true and attempts remain, with the same delays and logging as
    /// ``run(_:beforeRetry:)``. For a backend that knows one more failure a fresh attempt may
    /// cure, for example an answer that arrived complete but garbled; the last error is thrown
    /// unchanged, so such a failure keeps its own (non-retryable) code.
    ///
    /// - Throws: the last error, `CancellationError` if the task is cancelled while waiting.
    public func run<Result>(
        _ operation: () async throws -> Result,
        retryingWhen shouldRetry: (RemoteStoreError) -> Bool,
        beforeRetry: (RemoteStoreError) async -> Void = { _ in }
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await attempt == 1 ? operation() : RemoteRequestCounter.countingAsRetry(operation)
            } catch let error as RemoteStoreError where shouldRetry(error) && attempt < maximumAttempts {
                attempt += 1
                logger.debug("retrying", metadata: [
                    "code": "\(error.code)", "path": "\(error.path.map { "\($0)" } ?? "")",
                    "attempt": "\(attempt)", "of": "\(maximumAttempts)", "delay": "\(delay(beforeAttempt: attempt))",
                ])
                try await Task.sleep(for: delay(beforeAttempt: attempt))
                await beforeRetry(error)
            }
        }
    }
}
