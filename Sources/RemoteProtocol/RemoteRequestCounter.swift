import Synchronization

/// Counts what a server sees: the protocol requests (HTTP requests, SFTP operations) that store
/// calls make, as opposed to the calls themselves (a WebDAV `download` is a GET and a PROPFIND).
///
/// A backend reports each request it sends with ``record(_:)``, from the task that made the store
/// call (the counter in scope is a task-local value, inherited by child tasks and by code running
/// on the backend's own executors within that task). A caller measures a call with
/// ``measure(isolation:_:)``:
///
/// ```swift
/// let (outcome, requests, retried) = await RemoteRequestCounter.measure { try await store.list(directory) }
/// let items = try outcome.get()  // requests == 1 for a WebDAV PROPFIND; nil if the backend reports nothing
/// ```
///
/// Measurements nest: a request is counted by every counter in scope. A backend that reports
/// nothing leaves the measurement `nil` (`CountingRemoteStore` in SyncCore then counts the call
/// as one request).
///
/// Requests recorded inside ``countingAsRetry(isolation:_:)`` (a backend's retry after a transient
/// failure; `RetryPolicy` in RemoteTransportSupport wraps every attempt after the first) count
/// also as *retried*, so that what a call costs normally can be told from what failures added.
public final class RemoteRequestCounter: Sendable {
    @TaskLocal private static var current: RemoteRequestCounter?
    @TaskLocal private static var isRetry = false

    private let parent: RemoteRequestCounter?
    private let counted = Mutex<(requests: Int, retried: Int)?>(nil)

    private init(parent: RemoteRequestCounter?) {
        self.parent = parent
    }

    /// Records `count` protocol requests sent for the current task's store call (retries,
    /// redirects and authentication round trips each count). Does nothing outside a measurement.
    public static func record(_ count: Int = 1) {
        let retried = isRetry ? count : 0
        var counter = current
        while let next = counter {
            next.counted.withLock { $0 = (($0?.requests ?? 0) + count, ($0?.retried ?? 0) + retried) }
            counter = next.parent
        }
    }

    /// Runs `body`, a retry of a call that failed transiently: the requests recorded meanwhile
    /// (by `body`, its child tasks and retries nested in it) count as retried as well as requests.
    public static func countingAsRetry<Success>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Success
    ) async rethrows -> Success {
        try await $isRetry.withValue(true, operation: body)
    }

    /// Runs `body` and returns how it ended with the requests recorded meanwhile by the task and
    /// its child tasks (a failed call's requests count too), `nil` if nothing was recorded (a
    /// backend that does not report), and how many of them were retries.
    public static func measure<Success>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Success
    ) async -> (outcome: Result<Success, any Error>, requests: Int?, retried: Int) {
        let counter = RemoteRequestCounter(parent: current)
        let outcome: Result<Success, any Error>
        do {
            outcome = .success(try await $current.withValue(counter, operation: body))
        } catch {
            outcome = .failure(error)
        }
        let counted = counter.counted.withLock { $0 }
        return (outcome, counted?.requests, counted?.retried ?? 0)
    }
}
