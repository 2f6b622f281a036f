import GRDB

/// An incoming update of a row this database has never seen (no row, no tombstone, no local
/// deletion), thrown instead of ignoring it while other change sets are held back
/// (``ChangeSetApplier``'s `holdsUpdatesOfUnseenRows`): the row's creation may be in one of them,
/// and an update dropped now would lose to that older creation when it arrives. The apply rolls
/// back and the set waits with the held ones.
struct UpdateOfUnseenRow: Error, Sendable, CustomStringConvertible {
    /// The row's table.
    var table: String
    /// The row's key.
    var key: DatabaseValue

    var description: String {
        "it changes a row of \(table) this database has not received yet (\(key.readableText)), which may be created by a change set held back"
    }
}
