import GRDB

/// What applying one change set did.
public struct ApplyReport: Sendable, Equatable {
    /// Something worth telling the application that did not stop the apply.
    public enum Warning: Sendable, Equatable {
        /// Another client deleted a row that had unpushed local edits; the deletion won and the local
        /// edits were discarded (delete-versus-update).
        case remoteDeleteDiscardedLocalChanges(table: String, key: DatabaseValue)
        /// Another client changed a row that is deleted here (locally, unpushed, or by an earlier
        /// deletion); the deletion wins and the change was ignored (delete-versus-update).
        case changeToDeletedRowIgnored(table: String, key: DatabaseValue)
    }

    /// The applied set's identifier.
    public var setID: String
    /// The client that produced the set.
    public var clientID: String
    /// `true` when the set had already been applied and nothing was done.
    public var wasAlreadyApplied: Bool
    /// Rows created.
    public var insertedRows = 0
    /// Rows whose columns were changed (including inserts of rows that already existed).
    public var updatedRows = 0
    /// Rows deleted.
    public var deletedRows = 0
    /// Column values not written because a newer write of the same cell was already known.
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

    init(setID: String, clientID: String, wasAlreadyApplied: Bool) {
        self.setID = setID
        self.clientID = clientID
        self.wasAlreadyApplied = wasAlreadyApplied
    }
}
