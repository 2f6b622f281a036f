// How the sync's log names conflict decisions and rule warnings: kinds and tables only, never a
// row's key or values (keys and values are the application's data; logs leave the device).

extension ConflictResolution {
    /// The decision's kind for the log (a merged value is never logged).
    var logText: String {
        switch self {
        case .local: "local"
        case .remote: "remote"
        case .merged: "merged"
        }
    }
}

extension ApplyReport.Warning {
    /// The warning for the log: its kind and table, never the row's key or values.
    var logText: String {
        switch self {
        case .remoteDeleteDiscardedLocalChanges(let table, _): "remoteDeleteDiscardedLocalChanges(\(table))"
        case .changeToDeletedRowIgnored(let table, _): "changeToDeletedRowIgnored(\(table))"
        case .referenceCleared(let table, _, let columns, let parent): "referenceCleared(\(table).\(columns.joined(separator: ",")) → \(parent))"
        case .rowRemovedWithDeletedParent(let table, _, let parent): "rowRemovedWithDeletedParent(\(table) → \(parent))"
        case .rowRemovedByUniqueConstraint(let table, _, _): "rowRemovedByUniqueConstraint(\(table))"
        case .changeRejectedByConstraint(let table, _, _): "changeRejectedByConstraint(\(table))"
        case .droppedColumnIgnored(let table, let column): "droppedColumnIgnored(\(table).\(column))"
        case .unsyncedTableIgnored(let table): "unsyncedTableIgnored(\(table))"
        case .appTriggerWritesSkipped(let table, let keys): "appTriggerWritesSkipped(\(table), \(keys.count) rows)"
        case .rowsHeldBeforeJoiningReplaced(let table, let keys): "rowsHeldBeforeJoiningReplaced(\(table), \(keys.count) rows)"
        }
    }
}
