import Logging
import RemoteProtocol
import RemoteTransportSupport
import Synchronization
import Testing

struct RetryPolicyTests {
    private let fastPolicy = RetryPolicy(maximumAttempts: 3, initialDelay: .zero, maximumDelay: .zero)

    @Test func retryableErrorsAreRetriedUntilSuccess() async throws {
        let calls = Mutex(0)
        let reconnects = Mutex(0)
        let value = try await fastPolicy.run {
            let call = calls.withLock { $0 += 1; return $0 }
            if call < 3 { throw RemoteStoreError(.unavailable) }
            return "done"
        } beforeRetry: { _ in
            reconnects.withLock { $0 += 1 }
        }
        #expect(value == "done")
        #expect(calls.withLock { $0 } == 3)
        #expect(reconnects.withLock { $0 } == 2)
    }

    @Test("the requests of every attempt after the first count as retried, nested calls included")
    func retriedRequestsAreCounted() async throws {
        let calls = Mutex(0)
        let (outcome, requests, retried) = await RemoteRequestCounter.measure {
            try await fastPolicy.run {
                RemoteRequestCounter.record(2)
                // A call made inside an attempt (one request here) counts as its attempt does.
                try await RetryPolicy.never.run { RemoteRequestCounter.record() }
                let call = calls.withLock { $0 += 1; return $0 }
                if call < 3 { throw RemoteStoreError(.unavailable) }
            }
        }
        try outcome.get()
        #expect(requests == 9)
        #expect(retried == 6, "the second and third attempts")
        let (_, quiet, none) = await RemoteRequestCounter.measure { try await fastPolicy.run { RemoteRequestCounter.record() } }
        #expect(quiet == 1 && none == 0)
    }

    @Test func permanentErrorsAreNotRetried() async {
        let calls = Mutex(0)
        await #expect(throws: RemoteStoreError.self) {
            try await fastPolicy.run {
                calls.withLock { $0 += 1 }
                throw RemoteStoreError(.permissionDenied)
            }
        }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func attemptsAreBounded() async {
        let calls = Mutex(0)
        await #expect(throws: RemoteStoreError.self) {
            try await fastPolicy.run {
                calls.withLock { $0 += 1 }
                throw RemoteStoreError(.timedOut)
            }
        }
        #expect(calls.withLock { $0 } == 3)
    }

    /// A predicate retries a failure that is not retryable by its code, and the last error keeps
    /// that code.
    @Test func predicateRetriesChosenFailuresAndKeepsTheirCode() async {
        let calls = Mutex(0)
        await #expect {
            try await fastPolicy.run({
                calls.withLock { $0 += 1 }
                throw RemoteStoreError(.invalidResponse, message: "garbled")
            }, retryingWhen: { $0.code == .invalidResponse })
        } throws: { error in
            (error as? RemoteStoreError)?.code == .invalidResponse
        }
        #expect(calls.withLock { $0 } == 3)
        calls.withLock { $0 = 0 }
        await #expect(throws: RemoteStoreError.self) {
            try await fastPolicy.run({
                calls.withLock { $0 += 1 }
                throw RemoteStoreError(.unavailable)
            }, retryingWhen: { $0.code == .invalidResponse })
        }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func delaysGrowExponentiallyUpToTheMaximum() {
        let policy = RetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(100), maximumDelay: .milliseconds(350))
        #expect(policy.delay(beforeAttempt: 2) == .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 3) == .milliseconds(200))
        #expect(policy.delay(beforeAttempt: 4) == .milliseconds(350))
        #expect(policy.delay(beforeAttempt: 9) == .milliseconds(350))
    }

    @Test func retriesAreLoggedWithTheirAttemptAndCode() async throws {
        let lines = RecordedLines()
        var policy = fastPolicy
        policy.logger = Logger(label: "test", factory: { _ in RecordingHandler(lines: lines) })
        let calls = Mutex(0)
        _ = try await policy.run {
            if calls.withLock({ $0 += 1; return $0 }) < 3 { throw RemoteStoreError(.timedOut) }
            return ()
        }
        let logged = lines.all
        #expect(logged.count == 2)
        #expect(logged.allSatisfy { $0.contains("retrying") && $0.contains("code=timedOut") })
        #expect(logged.last?.contains("attempt=3") == true)
    }
}

/// Lines logged, shared by the handlers of a test.
private final class RecordedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A log handler appending each record, message and metadata, as one line.
private struct RecordingHandler: LogHandler {
    let lines: RecordedLines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.append((["\(event.message)"] + fields).joined(separator: " "))
    }
}
