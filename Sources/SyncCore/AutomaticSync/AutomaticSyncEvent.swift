/// What ``AutomaticSync`` did, delivered by ``AutomaticSync/events``.
public enum AutomaticSyncEvent: Sendable {
    /// Why a sync ran.
    public enum Trigger: Sendable, Equatable {
        /// ``AutomaticSync/start()``.
        case start
        /// Local changes (after ``AutomaticSyncConfiguration/delayAfterLocalChanges``).
        case localChanges
        /// A check found another client's new sync, or local changes not seen before.
        case poll
    }

    /// A sync completed.
    case synced(SyncReport, trigger: Trigger)
    /// A check found nothing to do.
    case upToDate
    /// A check or sync failed; the next check comes after `retryIn` (backing off).
    case failed(SyncError, retryIn: Duration)
}
