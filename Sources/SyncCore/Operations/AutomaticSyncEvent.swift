/// What ``AutomaticSync`` did, delivered by ``AutomaticSync/events``.
///
/// Later releases may add events and triggers: a `switch` needs an `@unknown default:`.
@nonexhaustive
public enum AutomaticSyncEvent: Sendable {
    /// Why a sync ran (or was tried).
    @nonexhaustive
    public enum Trigger: Sendable, Equatable {
        /// ``AutomaticSync/start()``.
        case start
        /// Local changes (after ``AutomaticSyncConfiguration/delayAfterLocalChanges``), written
        /// through the manager's database connection or, noticed by the database check, by any
        /// other connection or process.
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
    /// A check or a sync failed; the next check, which retries, comes within `retryIn` (backing
    /// off while failures last). After a failure, local changes start no sync until a check
    /// succeeds again: the checks push them.
    case failed(SyncError, trigger: Trigger, retryIn: Duration)
}
