/// When ``AutomaticSync`` synchronizes.
///
/// **The polling curve.** The remote is checked often while the document is active and less and
/// less while it is quiet: after activity (a check that found another client's new set, or a sync
/// that applied or pushed something, here or from the local-change loop) the next check comes
/// after ``activePollInterval``; after each check that finds nothing, the wait doubles, up to
/// ``pollInterval``. With the defaults (3 s, 60 s) the waits after a burst of work are 3, 6, 12,
/// 24, 48, then 60 s: an idle client costs one listing a minute, 1,440 a day (plus about six
/// after each burst), while two clients at work see each other's changes within a few seconds.
public struct AutomaticSyncConfiguration: Sendable, Equatable {
    /// How long after a local change the sync starts; changes made meanwhile go in the same sync.
    public var delayAfterLocalChanges: Duration
    /// The longest wait between checks of the remote while the document is quiet (one listing of
    /// `RecentSyncs/` each), and of the local change log for changes written outside the
    /// observed connection.
    public var pollInterval: Duration
    /// The wait before the next check after activity (see the polling curve above); at most
    /// ``pollInterval``. Set it to ``pollInterval`` for a fixed interval.
    public var activePollInterval: Duration
    /// The longest wait between checks after consecutive failures (the wait doubles from
    /// ``pollInterval`` up to this).
    public var maximumBackoff: Duration
    /// How often the database is checked for commits of other connections and processes (the
    /// application's other connections, an app extension, the `sqlite3` tool), which the
    /// observation of the manager's own connection does not see: one `PRAGMA data_version`, a
    /// few microseconds. Such a commit counts as a local change (a sync
    /// ``delayAfterLocalChanges`` later if changes are pending). At least 10 ms (a shorter
    /// interval is taken as 10 ms). `nil` turns the check off; the remote checks still find such
    /// changes, up to ``pollInterval`` later.
    public var databaseCheckInterval: Duration?

    /// A configuration; by default a sync 2 s after local changes (of any connection or process,
    /// the database being checked every second), checks of the remote every 3 s after activity
    /// backing off to one a minute while quiet, and at most 10 minutes between checks while the
    /// remote fails.
    public init(
        delayAfterLocalChanges: Duration = .seconds(2),
        pollInterval: Duration = .seconds(60),
        activePollInterval: Duration = .seconds(3),
        maximumBackoff: Duration = .seconds(600),
        databaseCheckInterval: Duration? = .seconds(1)
    ) {
        self.delayAfterLocalChanges = delayAfterLocalChanges
        self.pollInterval = pollInterval
        self.activePollInterval = min(activePollInterval, pollInterval)
        self.maximumBackoff = maximumBackoff
        self.databaseCheckInterval = databaseCheckInterval.map { max($0, .milliseconds(10)) }
    }

    /// The wait after a failure when the previous wait was `previous`: twice it, at least
    /// ``pollInterval``, at most ``maximumBackoff``.
    package func backoff(after previous: Duration) -> Duration {
        min(max(previous * 2, pollInterval), maximumBackoff)
    }

    /// The wait before the next check: ``activePollInterval`` after activity, otherwise twice
    /// `previous` (at least ``activePollInterval``), at most ``pollInterval``.
    package func nextPollDelay(after previous: Duration, activity: Bool) -> Duration {
        activity ? activePollInterval : min(max(previous * 2, activePollInterval), pollInterval)
    }
}
