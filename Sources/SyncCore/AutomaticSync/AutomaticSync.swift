import GRDB

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
///   change log in the database of the manager's ``DocumentSyncManager/localStore``: every commit that logs a change wakes
///   the local loop, which waits ``AutomaticSyncConfiguration/delayAfterLocalChanges`` (changes
///   made meanwhile join the same sync) and syncs if changes are pending. Writes through other
///   connections or processes are picked up by the periodic check.
/// - **Periodic check**, on the polling curve of ``AutomaticSyncConfiguration`` (every
///   ``AutomaticSyncConfiguration/activePollInterval`` after activity, doubling up to
///   ``AutomaticSyncConfiguration/pollInterval`` while quiet): one listing of `RecentSyncs/` (a
///   client that pushes always writes a new last-sync marker, which in format 2 names the set)
///   and a local look at the change log; a sync runs only if another client published a set not
///   applied here (format 1: synced since the last check) or local changes are pending. A sync of
///   local changes brings the next check forward to the active interval, since the other clients
///   may answer. After a failure, the wait doubles up to
///   ``AutomaticSyncConfiguration/maximumBackoff``; a success resets it.
/// - Syncs go through ``DocumentSyncManager/synchronize()``, so they coalesce with the
///   application's own calls.
/// - **Stopping**: ``stop()`` cancels both loops and the observation, waits for a sync in
///   progress to end, and finishes ``events``; nothing keeps running afterwards.
/// - **Time** comes from the injected `Clock`, so tests drive it without sleeping.
public actor AutomaticSync {
    /// The events, for one reader; the stream ends at ``stop()``.
    public nonisolated let events: AsyncStream<AutomaticSyncEvent>

    private let manager: DocumentSyncManager
    private let configuration: AutomaticSyncConfiguration
    private let clock: any Clock<Duration>
    private let eventSink: AsyncStream<AutomaticSyncEvent>.Continuation
    private var tasks: [Task<Void, Never>] = []
    private var observation: AnyDatabaseCancellable?
    private var knownPublications: RemotePublications?
    private var stopped = false
    /// Counts syncs that applied or pushed something, so the check loop notices activity while it
    /// waits.
    private var activity = 0

    /// Prepares automatic sync of `manager`'s document; nothing runs before ``start()``.
    public init(
        manager: DocumentSyncManager,
        configuration: AutomaticSyncConfiguration = AutomaticSyncConfiguration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.manager = manager
        self.configuration = configuration
        self.clock = clock
        (events, eventSink) = AsyncStream.makeStream(of: AutomaticSyncEvent.self)
    }

    /// Starts: one sync now, then the two loops. Calling it while running, or after ``stop()``
    /// (an instance runs once; create another to start again), does nothing.
    public func start() {
        guard tasks.isEmpty, !stopped else { return }
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        observation = DatabaseRegionObservation(tracking: LocalStore.changeLogRegion).start(
            in: manager.localStore.writer,
            onError: { _ in signal.finish() },
            onChange: { _ in signal.yield() }
        )
        tasks = [
            Task { await self.syncOnLocalChanges(signals) },
            Task { await self.poll() },
        ]
    }

    /// Stops both loops and the observation, waits for them (and a sync in progress) to end, and
    /// finishes ``events``.
    public func stop() async {
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

    private func syncOnLocalChanges(_ signals: AsyncStream<Void>) async {
        for await _ in signals {
            do {
                try await clock.sleep(for: configuration.delayAfterLocalChanges)
                if try manager.localStore.hasPendingChanges() {
                    try await sync(.localChanges)
                }
            } catch is CancellationError {
                return
            } catch {
                // Reported by `sync`; the periodic check retries with backoff.
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
        var failing = false
        var start = true
        var activitySeen = activity
        var pollsSinceRetry = 0
        var retryEvery = 1
        while !Task.isCancelled {
            do {
                try await wait(delay, endingEarlyOnActivitySince: failing ? nil : activitySeen)
                let publications = try await manager.otherClientsPublications()
                let pending = try manager.localStore.hasPendingChanges()
                let news = publications.isNews(comparedTo: knownPublications)
                pollsSinceRetry += 1
                let retryDue = publications.announcesSets && !publications.names.isEmpty && pollsSinceRetry >= retryEvery
                if start || news || pending || retryDue {
                    try await sync(start ? .start : news ? .remoteAnnouncement : .poll)
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
            } catch is CancellationError {
                return
            } catch {
                delay = min(max(delay * 2, configuration.pollInterval), configuration.maximumBackoff)
                failing = true
                let failure = (error as? SyncError) ?? SyncError(.local, "\(error)", underlying: error)
                eventSink.yield(.failed(failure, retryIn: delay))
            }
        }
    }

    /// The longest wait, in polls, between syncs for an announced set that does not arrive.
    private static let maximumPollsBetweenRetries = 64

    /// Sleeps `delay`; given an activity count `seen`, in steps of the active interval, ending
    /// early (after at least one step) once a sync of this client has applied or pushed something
    /// since that count.
    private func wait(_ delay: Duration, endingEarlyOnActivitySince seen: Int?) async throws {
        guard let seen, delay > configuration.activePollInterval else {
            return try await clock.sleep(for: delay)
        }
        var waited = Duration.zero
        while waited < delay {
            let step = min(configuration.activePollInterval, delay - waited)
            try await clock.sleep(for: step)
            waited += step
            if activity != seen { return }
        }
    }

    private func sync(_ trigger: AutomaticSyncEvent.Trigger) async throws {
        let report = try await manager.synchronize()
        if report.appliedSets > 0 || report.pushedChanges > 0 { activity += 1 }
        eventSink.yield(.synced(report, trigger: trigger))
    }
}
