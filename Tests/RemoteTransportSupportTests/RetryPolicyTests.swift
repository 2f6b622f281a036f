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

    @Test func delaysGrowExponentiallyUpToTheMaximum() {
        let policy = RetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(100), maximumDelay: .milliseconds(350))
        #expect(policy.delay(beforeAttempt: 2) == .milliseconds(100))
        #expect(policy.delay(beforeAttempt: 3) == .milliseconds(200))
        #expect(policy.delay(beforeAttempt: 4) == .milliseconds(350))
        #expect(policy.delay(beforeAttempt: 9) == .milliseconds(350))
    }
}
