import GRDB

/// What to do with one ``Conflict`` while applying a change set.
public enum ConflictResolution: Sendable, Equatable {
    /// Keep the local value. If the remote write was the later one, the local value is re-published
    /// with a fresh clock (newer than the remote one), so every client ends with the local value.
    case local
    /// Take the remote value; the local edit of that column is superseded.
    case remote
    /// Store this value instead of either and publish it with a fresh clock.
    case merged(DatabaseValue)
}
