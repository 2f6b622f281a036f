import Synchronization

/// A clock that only moves when a test calls ``advance(by:)``, so timing code is driven
/// deterministically without sleeping. Tests wait for a sleeper to be registered with
/// ``waitForSleeper(until:)`` before advancing past its deadline.
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleepers cancelled before they registered: they must not register afterwards.
        var cancelledBeforeRegistering: Set<Int> = []
        var waiters: [(deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// The number of tasks sleeping on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (due, woken) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledBeforeRegistering.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                        return (false, [])
                    }
                    if deadline <= state.now { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let woken = state.waiters.filter { $0.deadline == deadline }.map(\.continuation)
                    state.waiters.removeAll { $0.deadline == deadline }
                    return (false, woken)
                }
                if due { continuation.resume() }
                woken.forEach { $0.resume() }
            }
        } onCancel: {
            // A cancellation can come before the sleeper registers (the handler then runs first):
            // it is remembered, so the sleeper never registers to wait for a deadline nobody reaches.
            state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledBeforeRegistering.insert(id)
                    return nil
                }
                return sleeper
            }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        due.forEach { $0.resume() }
    }

    /// Returns once a task sleeps until `deadline` (at once if one already does).
    func waitForSleeper(until deadline: Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let present = state.withLock { state in
                if state.sleepers.values.contains(where: { $0.deadline == deadline }) { return true }
                state.waiters.append((deadline, continuation))
                return false
            }
            if present { continuation.resume() }
        }
    }
}
