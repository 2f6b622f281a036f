/// A change set written from the local pending changes, waiting to be uploaded.
///
/// Pass it to ``LocalStore/markPushed(_:)`` once the upload has succeeded; until then the changes
/// stay pending (and would be written again, with any newer ones, by the next
/// ``LocalStore/writePendingChangeSet(to:setID:)``).
package struct PendingChangeSet: Sendable, Equatable {
    /// The written set's trailer information (id, count, clock range, size).
    package var summary: ChangeSetSummary
    /// The position of the newest change-log row included; later local changes are not part of
    /// this set.
    var lastSequence: Int64
}
