import GRDB

/// What applying one change set did.
public struct ApplyReport: Sendable, Equatable {
    /// Something worth telling the application that did not stop the apply.
    ///
    /// The set of kinds is open: later releases add kinds, so a `switch` needs an
    /// `@unknown default:`. ``description`` says each one in a sentence for people.
    @nonexhaustive
    public enum Warning: Sendable, Equatable, CustomStringConvertible {
        /// Another client deleted a row that had unpushed local edits; the deletion won and the local
        /// edits were discarded (delete-versus-update).
        case remoteDeleteDiscardedLocalChanges(table: String, key: DatabaseValue)
        /// Another client changed a row that is deleted here (locally, unpushed, or by an earlier
        /// deletion); the deletion wins and the change was ignored (delete-versus-update).
        case changeToDeletedRowIgnored(table: String, key: DatabaseValue)
        /// A row's reference named a row that was deleted (by another client or locally); the
        /// reference rule set it to NULL (or to its default) as the schema or the rule says (see
        /// Docs/Conflicts.md). `key` is NULL for a table that is not synced.
        case referenceCleared(table: String, key: DatabaseValue, columns: [String], parentTable: String)
        /// A row was removed because the row it references was deleted (`ON DELETE CASCADE`, or a
        /// reference that cannot be NULL); its last values are in ``LocalStore/removedRows()``.
        case rowRemovedWithDeletedParent(table: String, key: DatabaseValue, parentTable: String)
        /// Two rows with different keys collided on a unique constraint other than the key; the
        /// row with the larger key was removed (every client keeps the same one) and its last
        /// values are in ``LocalStore/removedRows()``.
        case rowRemovedByUniqueConstraint(table: String, key: DatabaseValue, keptKey: DatabaseValue)
        /// A change was refused by a constraint of the local schema other than a reference or a
        /// unique key (a `CHECK`, a `NOT NULL`); the row keeps its previous values and the rest of
        /// the set was applied. The incoming values are in ``LocalStore/removedRows()``.
        case changeRejectedByConstraint(table: String, key: DatabaseValue, reason: String)
        /// The set carries values for a column dropped here (by a migration this client already
        /// ran); they were ignored. Reported once per set and column.
        case droppedColumnIgnored(table: String, column: String)
        /// The set carries changes of a table this database stopped synchronizing
        /// (``LocalStore/unregister(table:)``); they were ignored. Reported once per set and table.
        case unsyncedTableIgnored(table: String)
        /// The app's own triggers, fired by rows written for another client, tried to write these
        /// rows of a synced table; the writes were skipped, because the client that made the
        /// change published what its triggers wrote (Docs/Conflicts.md, "Your own triggers").
        /// Reported once per set (or re-base) and table.
        case appTriggerWritesSkipped(table: String, keys: [DatabaseValue])
        /// This database held these rows before it first joined the document, and the document's
        /// whole store has other values for the same keys: the document's version was kept, and
        /// this database's values are in ``LocalStore/removedRows()`` (Docs/Conflicts.md,
        /// "Joining with rows of its own"). Reported once per re-base and table.
        case rowsHeldBeforeJoiningReplaced(table: String, keys: [DatabaseValue])
    }

    /// The applied set's identifier.
    public var setID: String
    /// The client that produced the set.
    public var databaseID: String
    /// `true` when the set had already been applied and nothing was done.
    public var wasAlreadyApplied: Bool
    /// Rows created.
    public var insertedRows = 0
    /// Rows whose columns were changed (including inserts of rows that already existed).
    public var updatedRows = 0
    /// Rows deleted.
    public var deletedRows = 0
    /// Column values not written because a newer write of the same cell was already known, and
    /// deletions not applied because the row was created again after them.
    public var staleValuesIgnored = 0
    /// The conflicts met and how each was resolved.
    public var conflicts: [ResolvedConflict] = []
    /// Delete-versus-update and similar notices.
    public var warnings: [Warning] = []

    /// A conflict and the decision taken.
    public struct ResolvedConflict: Sendable, Equatable {
        /// The conflict.
        public var conflict: Conflict
        /// The decision.
        public var resolution: ConflictResolution
    }

    init(setID: String, databaseID: String, wasAlreadyApplied: Bool) {
        self.setID = setID
        self.databaseID = databaseID
        self.wasAlreadyApplied = wasAlreadyApplied
    }
}

extension ApplyReport.Warning {
    /// The warning as people read it, for a change set from another client.
    public var description: String { description(from: "another client") }

    /// The warning as people read it: of an apply of `client`'s set, or of a rule applied to
    /// local data (`nil`). Keys are shown (text quoted, NULL spelled out, BLOBs by their size).
    func description(from client: String?) -> String {
        let removedRows = "its values are kept in rollingsync_removed_rows"
        switch self {
        case .remoteDeleteDiscardedLocalChanges(let table, let key):
            return "\(client ?? "another client") deleted \(table) \(key.readableText); the deletion won over local edits"
        case .changeToDeletedRowIgnored(let table, let key):
            return "\(client ?? "another client") changed \(table) \(key.readableText), which is deleted here; the change was ignored"
        case .referenceCleared(let table, let key, let columns, let parent):
            return "\(table) \(key.readableText): \(columns.joined(separator: ", ")) referred to a deleted \(parent) row and was cleared"
        case .rowRemovedWithDeletedParent(let table, let key, let parent):
            return "\(table) \(key.readableText) was removed because the \(parent) row it refers to was deleted; \(removedRows)"
        case .rowRemovedByUniqueConstraint(let table, let key, let kept):
            return "\(table) \(key.readableText) collided with \(kept.readableText) on a unique constraint and was removed; \(removedRows)"
        case .changeRejectedByConstraint(let table, let key, let reason):
            return "a change of \(table) \(key.readableText) from \(client ?? "this client") was refused by a constraint (\(reason)); \(removedRows)"
        case .droppedColumnIgnored(let table, let column):
            return "\(client ?? "another client") sent values for \(table).\(column), which was dropped here; they were ignored"
        case .unsyncedTableIgnored(let table):
            return "\(client ?? "another client") sent changes of \(table), which this database no longer syncs; they were ignored"
        case .appTriggerWritesSkipped(let table, let keys):
            return "this database's triggers tried to write \(table) \(Self.listed(keys)) while changes from \(client ?? "another client") were written; "
                + "skipped, as the client that made the changes published what its triggers wrote"
        case .rowsHeldBeforeJoiningReplaced(let table, let keys):
            return "\(table) \(Self.listed(keys)), held here before this database joined the document, took the document's version; "
                + "this database's values are kept in rollingsync_removed_rows"
        }
    }
}

extension ApplyReport.Warning {
    /// Up to three keys as people read them, and how many more there are.
    fileprivate static func listed(_ keys: [DatabaseValue]) -> String {
        keys.prefix(3).map(\.readableText).joined(separator: ", ") + (keys.count > 3 ? " and \(keys.count - 3) more" : "")
    }
}

extension DatabaseValue {
    /// The value as people read it in a warning or a conflict line: text quoted, NULL spelled out,
    /// a BLOB by its size.
    package var readableText: String {
        switch storage {
        case .null: "NULL"
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .string(let string): "\"\(string)\""
        case .blob(let data): "<\(data.count) bytes>"
        }
    }
}
