/// When ``AutomaticSync`` synchronizes.
public struct AutomaticSyncConfiguration: Sendable, Equatable {
    /// How long after a local change the sync starts; changes made meanwhile go in the same sync.
    public var delayAfterLocalChanges: Duration
    /// How often the remote is checked for other clients' syncs (one listing of `RecentSyncs/`)
    /// and the local change log for changes written outside the observed connection.
    public var pollInterval: Duration
    /// The longest wait between checks after consecutive failures (the wait doubles from
    /// ``pollInterval`` up to this).
    public var maximumBackoff: Duration

    /// A configuration; by default a sync 2 s after local changes, a check every minute, and at
    /// most 10 minutes between checks while the remote fails.
    public init(
        delayAfterLocalChanges: Duration = .seconds(2),
        pollInterval: Duration = .seconds(60),
        maximumBackoff: Duration = .seconds(600)
    ) {
        self.delayAfterLocalChanges = delayAfterLocalChanges
        self.pollInterval = pollInterval
        self.maximumBackoff = maximumBackoff
    }
}
