/// What ``AutomaticSync`` did, delivered by ``AutomaticSync/events``.
public enum AutomaticSyncEvent: Sendable {
    /// Why a sync ran.
    public enum Trigger: Sendable, Equatable {
        /// ``AutomaticSync/start()``.
        case start
        /// Local changes (after ``AutomaticSyncConfiguration/delayAfterLocalChanges``).
        case localChanges
        /// A check found another client's new set (format 1: another client's sync).
        case remoteAnnouncement
        /// A check found local changes written outside the observed connection, or retried a set
        /// announced before its upload.
        case poll
    }

    /// A sync completed.
    case synced(SyncReport, trigger: Trigger)
    /// A check found nothing to do.
    case upToDate
    /// A check or sync failed; the next check comes after `retryIn` (backing off).
    case failed(SyncError, retryIn: Duration)
}
