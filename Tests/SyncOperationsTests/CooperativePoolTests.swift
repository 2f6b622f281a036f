import Dispatch
import Foundation
import GRDB
import SyncCore
import Synchronization
import Testing

/// The sync engine never holds a thread of Swift's cooperative pool while SQLite works: an apply
/// runs on the local store's own queue (`LocalStore.perform`), so other tasks keep running.
@Suite("Local database work stays off the cooperative pool")
struct CooperativePoolTests {
    /// More receivers than the pool has threads each apply a set whose conflict goes to a resolver
    /// that waits (in SQLite's transaction, as a long apply or a busy wait would) until this
    /// test's task has seen every resolver waiting. Were the applies run on the pool, they would
    /// hold all its threads, this task could not run, and every resolver would give up after a
    /// minute; run off the pool, the test's task releases them at once. No clock decides.
    @Test("applies that block do not starve other tasks")
    func blockedAppliesLeaveThePoolFree() async throws {
        let receiverCount = 2 * max(ProcessInfo.processInfo.activeProcessorCount, 2)
        let waiting = Atomic<Int>(0)
        let gate = DispatchSemaphore(value: 0)
        let gaveUp = Atomic<Bool>(false)
        let blockingResolver = ConflictResolver { _ in
            waiting.add(1, ordering: .sequentiallyConsistent)
            if gate.wait(timeout: .now() + 60) == .timedOut { gaveUp.store(true, ordering: .sequentiallyConsistent) }
            return .remote
        }
        let remote = try TestRemote(.memory)
        let sender = try TestClient("sender", remote: remote.store)
        try sender.execute("INSERT INTO note VALUES ('n', NULL, 'first', 'body', 1)")
        try await sender.sync()
        var receivers: [TestClient] = []
        for index in 0..<receiverCount {
            let receiver = try TestClient("receiver-\(index)", remote: remote.store, delegate: ScriptedDelegate(conflictResolver: blockingResolver))
            try await receiver.sync()
            try receiver.execute("UPDATE note SET title = ? WHERE id = 'n'", ["receiver \(index)"])
            receivers.append(receiver)
        }
        try sender.execute("UPDATE note SET title = 'from the sender' WHERE id = 'n'")
        try await sender.sync()

        try await withThrowingTaskGroup(of: SyncReport.self) { group in
            for receiver in receivers {
                group.addTask { try await receiver.sync() }
            }
            while waiting.load(ordering: .sequentiallyConsistent) < receiverCount {
                try await Task.sleep(for: .milliseconds(5))
            }
            for _ in 0..<receiverCount { gate.signal() }
            for try await report in group {
                #expect(report.conflicts.count == 1)
            }
        }
        let resolverGaveUp = gaveUp.load(ordering: .sequentiallyConsistent)
        #expect(!resolverGaveUp, "a resolver waited a minute: the applies held the cooperative pool")
        for receiver in receivers {
            #expect(try receiver.value("SELECT title FROM note WHERE id = 'n'") == "from the sender".databaseValue)
        }
    }
}
