import Foundation
import GRDB
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rollsync` beside an application that holds the database, and beside another `rollsync`: it
/// waits (up to `--busy-timeout`) instead of failing at once, says so, and ends with a clear error
/// naming the cause when the wait is too long.
@Suite("rollsync waits for a busy database")
struct DatabaseLockTests {
    /// Two notes databases initialised on one folder remote, the first with two unpushed notes.
    static func setUp() async throws -> (Workspace, String, String) {
        let workspace = try Workspace()
        let (_, first, second) = try await workspace.makeInitialisedPair()
        try workspace.execute("INSERT INTO notes VALUES ('a', 'one'), ('b', 'two')", in: first)
        return (workspace, first, second)
    }

    /// A connection of "the application" holding a write transaction (BEGIN IMMEDIATE) open.
    static func holdWriteLock(on file: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let queue = try DatabaseQueue(path: file, configuration: configuration)
        try queue.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE; INSERT INTO notes VALUES ('app', 'written while holding the lock')")
        }
        return queue
    }

    @Test("a sync waits while the application holds a write transaction, then succeeds")
    func waitsForTheApplication() async throws {
        let (workspace, first, _) = try await Self.setUp()
        let application = try Self.holdWriteLock(on: first)
        let sync = try KillableProcess(try RollsyncProcess.binary(), ["sync", "--db", first, "--json"])
        // Still running a while later: it waits for the lock instead of failing at once.
        try await Task.sleep(for: .seconds(2))
        #expect(!sync.hasEnded, "the sync should wait for the application's transaction: \(sync.standardErrorSoFar)")
        try application.inDatabase { db in try db.execute(sql: "COMMIT") }
        try application.close()
        let outcome = await sync.wait()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try outcome.jsonObjects().first?["pushedChanges"] as? Int == 3, "the application's row went out too")
        #expect(try workspace.notes(in: first).count == 3)
    }

    @Test("a write lock held longer than --busy-timeout ends in a clear error (exit 4) and changes nothing")
    func applicationHoldsTooLong() async throws {
        let (workspace, first, _) = try await Self.setUp()
        let application = try Self.holdWriteLock(on: first)
        defer { try? application.inDatabase { db in try db.execute(sql: "ROLLBACK") } }
        let outcome = try await RollsyncProcess.run(["sync", "--db", first, "--busy-timeout", "1"])
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("busy"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("--busy-timeout"), "the hint names the option")
        try application.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        #expect(try workspace.notes(in: first) == ["a=one", "b=two"])
    }

    @Test("two syncs of one database at once: one waits for the other, both succeed, nothing is pushed twice")
    func twoSyncsAtOnce() async throws {
        let (workspace, first, second) = try await Self.setUp()
        let binary = try RollsyncProcess.binary()
        let one = try KillableProcess(binary, ["sync", "--db", first, "--json"])
        let two = try KillableProcess(binary, ["sync", "--db", first, "--json"])
        let outcomes = [await one.wait(), await two.wait()]
        for outcome in outcomes {
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
        let pushed = try outcomes.map { try $0.jsonObjects().first?["pushedChanges"] as? Int ?? -1 }
        #expect(pushed.sorted() == [0, 2], "one pushed both notes, the other found nothing left: \(pushed)")
        let pulled = try await RollsyncProcess.run(["sync", "--db", second, "--json"])
        #expect(try pulled.jsonObjects().first?["appliedChanges"] as? Int == 2)
        #expect(try workspace.notes(in: second) == ["a=one", "b=two"])
    }

    @Test("a second rollsync says after a second that it waits for the first (naming its pid), and times out clearly")
    func waitsForAnotherRollsync() async throws {
        let (workspace, first, _) = try await Self.setUp()
        defer { withExtendedLifetime(workspace) {} }
        // Stand in for a running rollsync: take its lock and write a pid into it.
        let lockFile = first + ".rollsync-lock"
        let descriptor = open(lockFile, O_RDWR | O_CREAT, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }

        let timedOut = try await RollsyncProcess.run(["sync", "--db", first, "--busy-timeout", "2"])
        #expect(timedOut.status == 4, "\(timedOut.standardError)")
        #expect(timedOut.standardError.contains("waiting for another rollsync working on \(first) (pid \(getpid()))"))
        #expect(timedOut.standardError.contains("another rollsync is working on \(first) (pid \(getpid()))"))

        // A busy timeout far longer than the test: on a loaded machine the test may see the
        // announcement long after it was written, and must not race the default 30 seconds.
        let waiting = try KillableProcess(try RollsyncProcess.binary(), ["sync", "--db", first, "--busy-timeout", "600"])
        try await waitUntil("the second rollsync announces that it waits") {
            waiting.standardErrorSoFar.contains("waiting for another rollsync")
        }
        #expect(!waiting.hasEnded)
        flock(descriptor, LOCK_UN)
        let outcome = await waiting.wait()
        #expect(outcome.status == 0, "\(outcome.standardError)")
    }
}
