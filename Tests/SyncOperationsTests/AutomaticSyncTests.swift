import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import Testing

@Suite("Automatic synchronization")
struct AutomaticSyncTests {
    /// Reads events until one matches, returning it; fails if the stream ends first.
    private func next(
        _ events: inout AsyncStream<AutomaticSyncEvent>.Iterator,
        where matches: (AutomaticSyncEvent) -> Bool
    ) async throws -> AutomaticSyncEvent {
        while let event = await events.next() {
            if matches(event) { return event }
        }
        throw TestFailure("the event stream ended")
    }

    /// Anna and Ben on a fresh in-memory remote, synced once, and anna's automatic sync started on
    /// a test clock: 2 s after local changes, a poll every 60 s (a flat curve), back-off up to 200 s.
    private static func startedPair() async throws -> (TestRemote, TestClient, TestClient, TestClock, AutomaticSync) {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let clock = TestClock()
        let configuration = AutomaticSyncConfiguration(
            delayAfterLocalChanges: .seconds(2), pollInterval: .seconds(60), activePollInterval: .seconds(60), maximumBackoff: .seconds(200)
        )
        let automatic = AutomaticSync(manager: anna.manager, configuration: configuration, clock: clock)
        await automatic.start()
        return (remote, anna, ben, clock, automatic)
    }

    private func report(_ event: AutomaticSyncEvent, _ trigger: AutomaticSyncEvent.Trigger) -> SyncReport? {
        if case .synced(let report, trigger) = event { return report }
        return nil
    }

    @Test("syncs after local changes, polls for other clients' syncs, backs off on errors and stops cleanly")
    func automaticSync() async throws {
        let (remote, anna, ben, clock, automatic) = try await Self.startedPair()
        let faults = try remote.faults
        var events = automatic.events.makeAsyncIterator()
        _ = try await next(&events) { report($0, .start) != nil }

        // Two local writes in a burst: one sync, after the delay.
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(60)))
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try anna.execute("INSERT INTO folder VALUES ('f2', 'Outbox')")
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(2)))
        clock.advance(by: .seconds(2))
        let local = try await next(&events) { report($0, .localChanges) != nil }
        #expect(report(local, .localChanges)?.pushedChanges == 2)
        // The push ends the check loop's wait: a check at once (the other clients may answer).
        _ = try await next(&events) { if case .upToDate = $0 { true } else { false } }

        // Another client's sync is found by the periodic check.
        try await ben.sync()
        try ben.execute("INSERT INTO tag VALUES ('t1', 'from ben')")
        try await ben.sync()
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(60)))
        clock.advance(by: .seconds(60))
        let polled = try await next(&events) { report($0, .remoteAnnouncement) != nil }
        #expect(report(polled, .remoteAnnouncement)?.appliedSets == 1)
        #expect(try anna.count("tag") == 1)

        // Failures back off: 120 s, then the 200 s maximum; a success resets the interval.
        await faults.failEveryCall()
        for expected in [Duration.seconds(120), .seconds(200)] {
            let due = clock.now.advanced(by: expected == .seconds(120) ? .seconds(60) : .seconds(120))
            await clock.waitForSleeper(until: due)
            clock.advance(by: clock.now.duration(to: due))
            let failure = try await next(&events) {
                if case .failed = $0 { return true }
                return false
            }
            if case .failed(_, _, let retryIn) = failure {
                #expect(retryIn == expected)
            }
        }
        await faults.heal()
        let recovered = clock.now.advanced(by: .seconds(200))
        await clock.waitForSleeper(until: recovered)
        clock.advance(by: .seconds(200))
        _ = try await next(&events) {
            if case .upToDate = $0 { return true }
            return false
        }
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(60)))

        await automatic.stop()
        #expect(await events.next() == nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test("a set announced before its upload keeps a sync due at growing intervals until it arrives")
    func announcedSetNotThereYet() async throws {
        let (remote, anna, ben, clock, automatic) = try await Self.startedPair()
        let faults = try remote.faults
        var events = automatic.events.makeAsyncIterator()
        _ = try await next(&events) { report($0, .start) != nil }

        // Ben's marker announces a set whose upload then fails: the set is not there.
        try ben.execute("INSERT INTO tag VALUES ('t1', 'from ben')")
        await faults.failCall(2, of: .upload)
        await #expect(throws: SyncError.self) { try await ben.sync() }

        func poll() async throws -> AutomaticSyncEvent {
            let due = clock.now.advanced(by: .seconds(60))
            await clock.waitForSleeper(until: due)
            clock.advance(by: .seconds(60))
            return try await next(&events) {
                if case .upToDate = $0 { return true }
                return checked($0) != nil
            }
        }
        /// The report of a sync a check ran: for a new announcement, or a retry of one.
        func checked(_ event: AutomaticSyncEvent) -> SyncReport? {
            report(event, .poll) ?? report(event, .remoteAnnouncement)
        }
        // The announcement is news: a sync (nothing to apply); the next poll retries; then the
        // retries space out (every 2nd poll, then every 4th).
        var synced: [Bool] = []
        for _ in 0..<6 {
            let event = try await poll()
            synced.append(checked(event) != nil)
            #expect(checked(event)?.appliedSets ?? 0 == 0)
        }
        #expect(synced == [true, true, false, true, false, false])

        // Ben's next sync publishes the set: the next poll applies it.
        try await ben.sync()
        let applied = try await poll()
        #expect(checked(applied)?.appliedSets == 1)
        #expect(try anna.count("tag") == 1)
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(60)))
        await automatic.stop()
    }

    @Test(
        "checks come often after activity and back off while quiet: 3, 6, 12, 24, 48, then 60 s; a local push ends the wait",
        .timeLimit(.minutes(10))
    )
    func adaptivePolling() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let (anna, _) = try await TestClient.syncedPair(on: remote)
        let clock = TestClock()
        let automatic = AutomaticSync(manager: anna.manager, configuration: AutomaticSyncConfiguration(), clock: clock)
        var events = automatic.events.makeAsyncIterator()
        await automatic.start()
        _ = try await next(&events) { report($0, .start) != nil }
        let listingsAtStart = await memory.statistics.requests(of: .list)

        /// Advances the clock by the check loop's wait, once it waits exactly that long.
        func advance(_ seconds: Int) async {
            await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(seconds)))
            clock.advance(by: .seconds(seconds))
        }
        for wait in [3, 6, 12, 24, 48, 60, 60] {
            await advance(wait)
            _ = try await next(&events) { if case .upToDate = $0 { true } else { false } }
        }
        let quietListings = await memory.statistics.requests(of: .list) - listingsAtStart
        #expect(quietListings == 7, "one listing per check over 213 s, where a fixed 3 s would list 71 times")
        #expect(24 * 3600 / AutomaticSyncConfiguration().pollInterval.components.seconds <= 2_000, "an idle client's listings a day")

        // A local change, pushed 2 s later, ends the 60 s wait: a check at once, the next 3 s later.
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        await advance(2)
        let pushed = try await next(&events) { report($0, .localChanges) != nil }
        #expect(report(pushed, .localChanges)?.pushedChanges == 1)
        _ = try await next(&events) { if case .upToDate = $0 { true } else { false } }
        await advance(3)
        _ = try await next(&events) { if case .upToDate = $0 { true } else { false } }
        await automatic.stop()
    }

    @Test("on a folder, another client's sync wakes the check at once: no time passes on the clock", .timeLimit(.minutes(10)))
    func folderNotificationWakesTheCheck() async throws {
        let remote = try TestRemote(.folder)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let clock = TestClock()
        let automatic = AutomaticSync(manager: anna.manager, configuration: AutomaticSyncConfiguration(), clock: clock)
        var events = automatic.events.makeAsyncIterator()
        await automatic.start()
        _ = try await next(&events) { report($0, .start) != nil }
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(3)))
        let started = clock.now

        try ben.execute("INSERT INTO tag VALUES ('t1', 'from ben')")
        try await ben.sync()
        // Ben's new marker announces the set before its upload and wakes a check; if that check is
        // too early for the set, the deletion of Ben's previous marker, after the upload, wakes
        // the next one.
        _ = try await next(&events) { event in
            ((report(event, .remoteAnnouncement) ?? report(event, .poll))?.appliedSets ?? 0) == 1
        }
        #expect(clock.now == started, "the notifications, not the clock, woke the checks")
        #expect(try anna.count("tag") == 1)
        await automatic.stop()
    }

    @Test(
        "a commit of another connection (an app extension, sqlite3) is noticed by the database check and synced as a local change",
        .timeLimit(.minutes(10))
    )
    func otherConnectionsCommitsAreSynced() async throws {
        let (_, anna, ben, clock, automatic) = try await Self.startedPair()
        var events = automatic.events.makeAsyncIterator()
        _ = try await next(&events) { report($0, .start) != nil }
        // The check has read its first data_version once it sleeps.
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(1)))

        // Another connection to Anna's file: its commit is invisible to the observation of
        // Anna's own connection; the check of `data_version` a second later notices it.
        let other = try DatabaseQueue(path: anna.database.path)
        try await other.write { try $0.execute(sql: "INSERT INTO folder VALUES ('f9', 'From the extension')") }
        try other.close()
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(1)))
        clock.advance(by: .seconds(1))
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(2)))
        clock.advance(by: .seconds(2))
        let local = try await next(&events) { report($0, .localChanges) != nil }
        #expect(report(local, .localChanges)?.pushedChanges == 1)
        try await ben.sync()
        #expect(try ben.count("folder") == 1)
        await automatic.stop()
    }

    @Test(
        "a failed sync of local changes is reported; local changes then wait for the backed-off checks, which push them",
        .timeLimit(.minutes(10))
    )
    func failedLocalSyncIsReportedAndBacksOff() async throws {
        let (remote, anna, ben, clock, automatic) = try await Self.startedPair()
        let faults = try remote.faults
        var events = automatic.events.makeAsyncIterator()
        _ = try await next(&events) { report($0, .start) != nil }
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(60)))
        let checkDue = clock.now.advanced(by: .seconds(60))

        await faults.failEveryCall()
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(2)))
        clock.advance(by: .seconds(2))
        let failure = try await next(&events) { if case .failed = $0 { true } else { false } }
        guard case .failed(let error, let trigger, let retryIn) = failure else { return }
        #expect(trigger == .localChanges)
        #expect(error.code == .remote)
        #expect(retryIn == .seconds(60), "the check loop's wait: the next check retries")

        // While failing, more local changes start no sync of their own; the check fails and backs off.
        try anna.execute("INSERT INTO folder VALUES ('f2', 'Outbox')")
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(2)))
        clock.advance(by: .seconds(2))
        await clock.waitForSleeper(until: checkDue)
        clock.advance(by: clock.now.duration(to: checkDue))
        var seen: [AutomaticSyncEvent] = []
        let checkFailure = try await next(&events) { event in
            seen.append(event)
            if case .failed(_, .poll, _) = event { return true }
            return false
        }
        if case .failed(_, _, let retryIn) = checkFailure {
            #expect(retryIn == .seconds(120))
        }
        await faults.heal()
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(120)))
        clock.advance(by: .seconds(120))
        let retried = try await next(&events) { event in
            seen.append(event)
            return report(event, .poll) != nil
        }
        #expect(report(retried, .poll)?.pushedChanges == 2, "the check pushed both local changes")
        let localAttempts = seen.filter { if case .failed(_, .localChanges, _) = $0 { true } else { false } }
        #expect(localAttempts.isEmpty, "no local sync was tried while failing: \(seen)")
        try await ben.sync()
        #expect(try ben.count("folder") == 2)
        await automatic.stop()
    }
}
