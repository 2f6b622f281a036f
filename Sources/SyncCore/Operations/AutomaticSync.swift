import GRDB
import Synchronization

/// Opt-in automatic synchronization of one document (TICoreDataSync's sync-after-save and remote
/// polling): a sync shortly after local changes, and a cheap periodic check for other clients'
/// new change sets.
///
/// ```swift
/// let automatic = AutomaticSync(manager: manager)
/// await automatic.start()
/// for await event in automatic.events { … }   // optional
/// await automatic.stop()
/// ```
///
/// - **Local changes** are noticed through GRDB's `DatabaseRegionObservation` of RollingSync's
///   change log in the database of the manager's ``DocumentSyncManager/localStore`` (every commit
///   of that connection that logs a change), and, for commits of other connections and processes
///   (an app extension, the `sqlite3` tool), by reading `PRAGMA data_version` every
///   ``AutomaticSyncConfiguration/databaseCheckInterval``. Either wakes the local loop, which
///   waits ``AutomaticSyncConfiguration/delayAfterLocalChanges`` (changes made meanwhile join the
///   same sync) and syncs if changes are pending.
/// - **Periodic check**, on the polling curve of ``AutomaticSyncConfiguration`` (every
///   ``AutomaticSyncConfiguration/activePollInterval`` after activity, doubling up to
///   ``AutomaticSyncConfiguration/pollInterval`` while quiet): one listing of `RecentSyncs/` (a
///   client that pushes always writes a new last-sync marker, which in format 2 names the set)
///   and a local look at the change log; a sync runs only if another client published a set not
///   applied here (format 1: synced since the last check) or local changes are pending. A sync of
///   local changes ends the wait (a check follows at once, then the active interval), since the
///   other clients may answer.
/// - **Failures** of a check or of any sync are reported as ``AutomaticSyncEvent/failed(_:trigger:retryIn:)``.
///   While they last, the wait between checks doubles up to
///   ``AutomaticSyncConfiguration/maximumBackoff``, and local changes start no sync of their own:
///   the backed-off checks retry, pushing them once the remote is back. A successful check
///   resets both.
/// - **Notifications**: where the backend learns of changes without asking (a local folder,
///   through inotify), a change of `RecentSyncs/` ends the wait too, so another client's sync is
///   seen within moments; polling goes on beside it, as notifications are only a hint.
/// - Syncs go through ``DocumentSyncManager/synchronize()``, so they coalesce with the
///   application's own calls.
/// - **Stopping**: ``stop()`` cancels the loops and the observation, waits for a sync in
///   progress to end, and finishes ``events``; nothing keeps running afterwards. The loops also
///   end by themselves when the manager is closed (``DocumentSyncManager/close()``), and, for the
///   automatic sync a manager owns (``DocumentSyncManager/automaticSync``, which holds the manager
///   weakly), when the manager is released.
/// - **Time** comes from the injected `Clock`, so tests drive it without sleeping.
public actor AutomaticSync {
    /// The events, for one reader; the stream ends when the automatic sync does (``stop()``, the
    /// manager closed, or a manager that owns it released). It keeps the
    /// ``eventsKept`` newest events the reader has not taken yet (an app that never reads them
    /// costs no memory).
    public nonisolated let events: AsyncStream<AutomaticSyncEvent>

    /// How many unread events ``events`` keeps.
    public static let eventsKept = 256

    /// The manager: held strongly by an automatic sync an app makes, weakly by the one a manager
    /// owns, so that releasing that manager ends it.
    private let managerReference: ManagerReference
    /// The manager's local store (held on its own: it does not hold the manager).
    private let localStore: LocalStore
    private let configuration: AutomaticSyncConfiguration
    private let clock: any Clock<Duration>
    private let eventSink: AsyncStream<AutomaticSyncEvent>.Continuation
    private var tasks: [Task<Void, Never>] = []
    private var observation: ObservationHandle?
    private var knownPublications: RemotePublications?
    private var started = false
    private var stopped = false
    /// The running or finished ``stop()``, which later calls wait for.
    private var stopping: Task<Void, Never>?
    /// Counts syncs that applied or pushed something, so the check loop notices activity.
    private var activity = 0
    /// The check loop's sleep while it can be woken early (by a local sync that pushed, or a
    /// notification of the remote): cancelled to wake it.
    private var wakeableSleep: Task<Void, any Error>?
    /// A wake-up that came while the check loop was not sleeping: its next wait ends at once.
    private var pendingWake = false
    private var watchingRemote = false
    /// True from a failed check or sync until a check succeeds: local changes start no sync
    /// meanwhile (the checks retry them).
    private var failing = false
    /// The check loop's current wait: at most this long until the next check.
    private var checkDelay = Duration.zero

    /// Prepares automatic sync of `manager`'s document; nothing runs before ``start()``. It holds
    /// `manager` for as long as it exists.
    public init(
        manager: DocumentSyncManager,
        configuration: AutomaticSyncConfiguration = AutomaticSyncConfiguration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(reference: .strong(manager), localStore: manager.localStore, configuration: configuration, clock: clock)
    }

    /// The automatic sync `manager` owns (``DocumentSyncManager/automaticSync``): it holds the
    /// manager weakly and ends when the manager is released.
    init(ownedBy manager: DocumentSyncManager, configuration: AutomaticSyncConfiguration) {
        self.init(reference: .weak(WeakManager(manager)), localStore: manager.localStore, configuration: configuration, clock: ContinuousClock())
    }

    private init(reference: ManagerReference, localStore: LocalStore, configuration: AutomaticSyncConfiguration, clock: any Clock<Duration>) {
        managerReference = reference
        self.localStore = localStore
        self.configuration = configuration
        self.clock = clock
        (events, eventSink) = AsyncStream.makeStream(of: AutomaticSyncEvent.self, bufferingPolicy: .bufferingNewest(Self.eventsKept))
    }

    private enum ManagerReference: Sendable {
        case strong(DocumentSyncManager)
        case weak(WeakManager)
    }

    private final class WeakManager: Sendable {
        weak let manager: DocumentSyncManager?
        init(_ manager: DocumentSyncManager) { self.manager = manager }
    }

    /// The manager; `nil` once a manager that owns this automatic sync was released.
    private var manager: DocumentSyncManager? {
        switch managerReference {
        case .strong(let manager): manager
        case .weak(let reference): reference.manager
        }
    }

    /// Starts: one sync now, then the loops. Calling it while running, or after ``stop()``
    /// (an instance runs once; create another to start again), does nothing.
    public func start() async {
        guard !started, !stopped else { return }
        started = true
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let localStore = localStore
        // Starting the observation waits for the writer: off the cooperative pool.
        let observation = try? await localStore.perform {
            ObservationHandle(
                DatabaseRegionObservation(tracking: LocalStore.changeLogRegion).start(
                    in: localStore.writer,
                    onError: { _ in signal.finish() },
                    onChange: { _ in signal.yield() }
                )
            )
        }
        guard !stopped else {
            observation?.cancel()
            return
        }
        self.observation = observation
        tasks = [
            Task { await self.syncOnLocalChanges(signals) },
            Task { await self.poll() },
        ]
        if let interval = configuration.databaseCheckInterval {
            tasks.append(Task { await self.noticeOtherConnections(every: interval, signal: signal) })
        }
    }

    /// Stops the loops and the observation, waits for them (and a sync in progress) to end, and
    /// finishes ``events``. Calling it again waits for the first call to end.
    public func stop() async {
        end()
        await stopping?.value
    }

    /// Stops everything, waits for the loops (and a sync in progress, whose event is still
    /// delivered), then finishes ``events``.
    private func stopAndWait() async {
        stopped = true
        observation?.cancel()
        observation = nil
        let running = tasks
        tasks = []
        for task in running {
            task.cancel()
        }
        for task in running {
            await task.value
        }
        eventSink.finish()
    }

    /// The manager that owns this automatic sync was released: the loops end.
    func managerReleased() {
        end()
    }

    /// Syncs `delayAfterLocalChanges` after each signal of local changes if changes are pending,
    /// unless failing (see the type's documentation).
    private func syncOnLocalChanges(_ signals: AsyncStream<Void>) async {
        for await _ in signals {
            do {
                try await clock.sleep(for: configuration.delayAfterLocalChanges)
                guard !failing, try await hasPendingChanges() else { continue }
                try await sync(.localChanges)
            } catch is CancellationError {
                return
            } catch {
                guard !ends(after: error) else { return }
                report(error, trigger: .localChanges, retryIn: checkDelay)
            }
        }
    }

    /// Signals local changes when another connection or process committed to the database:
    /// `PRAGMA data_version`, read on the writer's connection, changes exactly then. A read that
    /// fails (the database busy) is tried again at the next tick.
    private func noticeOtherConnections(every interval: Duration, signal: AsyncStream<Void>.Continuation) async {
        let writer = localStore.writer
        @Sendable func dataVersion() async throws -> Int {
            try await writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        }
        var version = try? await dataVersion()
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: interval)
                let current = try await dataVersion()
                if current != version {
                    version = current
                    signal.yield()
                }
            } catch is CancellationError {
                return
            } catch {
                continue
            }
        }
    }

    /// Polls the remote on the polling curve and syncs when another client published something
    /// new or local changes are pending. A set announced but not there
    /// yet (announcements precede uploads) keeps a sync due: the next poll syncs again, then the
    /// 2nd, 4th … up to every 64th poll while that announcement stays unchanged and unapplied (a
    /// client that crashed mid-push would otherwise cost a sync per poll until it comes back).
    private func poll() async {
        var delay = Duration.zero
        var start = true
        var activitySeen = activity
        var pollsSinceRetry = 0
        var retryEvery = 1
        while !Task.isCancelled {
            var attempt: AutomaticSyncEvent.Trigger = start ? .start : .poll
            do {
                checkDelay = delay
                try await wait(delay, wakeable: !failing)
                guard let manager else { return end() }
                let publications = try await manager.otherClientsPublications()
                let pending = try await hasPendingChanges()
                let news = publications.isNews(comparedTo: knownPublications)
                pollsSinceRetry += 1
                let retryDue = publications.announcesSets && !publications.names.isEmpty && pollsSinceRetry >= retryEvery
                if start || news || pending || retryDue {
                    attempt = start ? .start : news ? .remoteAnnouncement : .poll
                    try await sync(attempt)
                    retryEvery = news ? 1 : min(retryEvery * 2, Self.maximumPollsBetweenRetries)
                    pollsSinceRetry = 0
                } else {
                    eventSink.yield(.upToDate)
                }
                knownPublications = publications
                delay = configuration.nextPollDelay(after: delay, activity: start || news || activity != activitySeen)
                activitySeen = activity
                start = false
                failing = false
                watchRemoteChanges()
            } catch is CancellationError {
                return
            } catch {
                guard !ends(after: error) else { return }
                delay = configuration.backoff(after: delay)
                checkDelay = delay
                report(error, trigger: attempt, retryIn: delay)
            }
        }
    }

    /// Reports a failed check or sync and holds back syncs of local changes until a check
    /// succeeds.
    private func report(_ error: any Error, trigger: AutomaticSyncEvent.Trigger, retryIn: Duration) {
        failing = true
        let failure = (error as? SyncError) ?? SyncError(.local, "\(error)", underlying: error)
        eventSink.yield(.failed(failure, trigger: trigger, retryIn: retryIn))
    }

    /// The longest wait, in polls, between syncs for an announced set that does not arrive.
    private static let maximumPollsBetweenRetries = 64

    /// Sleeps `delay`; when `wakeable`, ends early on a wake-up (``wakeCheckLoop()``), or at once
    /// if one came since the last wait.
    private func wait(_ delay: Duration, wakeable: Bool) async throws {
        guard wakeable else { return try await clock.sleep(for: delay) }
        guard !pendingWake else {
            pendingWake = false
            return
        }
        let clock = clock
        let sleep = Task { try await clock.sleep(for: delay) }
        wakeableSleep = sleep
        defer { wakeableSleep = nil }
        _ = await withTaskCancellationHandler { await sleep.result } onCancel: { sleep.cancel() }
        try Task.checkCancellation()
    }

    /// Once the document is registered, turns the remote's notifications (where it has them) into
    /// wake-ups of the check loop, until ``stop()``.
    private func watchRemoteChanges() {
        guard !watchingRemote, !stopped else { return }
        watchingRemote = true
        tasks.append(Task {
            guard let notifications = try? await self.manager?.remoteChangeNotifications() else { return }
            for await _ in notifications {
                self.wakeCheckLoop()
            }
        })
    }

    /// Ends the check loop's wakeable sleep now, or its next one at once.
    private func wakeCheckLoop() {
        if let wakeableSleep {
            wakeableSleep.cancel()
        } else {
            pendingWake = true
        }
    }

    private func sync(_ trigger: AutomaticSyncEvent.Trigger) async throws {
        guard let manager else {
            end()
            throw CancellationError()
        }
        let report = try await manager.synchronize()
        if report.appliedSets > 0 || report.pushedChanges > 0 {
            activity += 1
            if trigger == .localChanges { wakeCheckLoop() }
        }
        eventSink.yield(.synced(report, trigger: trigger))
    }

    /// Whether local changes are pending, read off the cooperative pool.
    private func hasPendingChanges() async throws -> Bool {
        let localStore = localStore
        return try await localStore.perform { try localStore.hasPendingChanges() }
    }

    /// Whether `error` ends the loops: the manager was closed. Ends them if so.
    private func ends(after error: any Error) -> Bool {
        guard (error as? SyncError)?.code == .closed else { return false }
        end()
        return true
    }

    /// Starts stopping without waiting (``stop()`` waits): from inside when the manager was closed
    /// or released, or from ``stop()``. Idempotent.
    private func end() {
        guard stopping == nil else { return }
        stopped = true
        stopping = Task { await self.stopAndWait() }
    }
}

/// The observation of the change log: started off the cooperative pool, cancelled from the actor.
private final class ObservationHandle: Sendable {
    private let cancellable: Mutex<AnyDatabaseCancellable?>

    init(_ cancellable: consuming sending AnyDatabaseCancellable) {
        self.cancellable = Mutex(cancellable)
    }

    /// Ends the observation; idempotent.
    func cancel() {
        cancellable.withLock { cancellable in
            cancellable?.cancel()
            cancellable = nil
        }
    }
}
