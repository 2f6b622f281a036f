import GRDB

/// Something a registration or sync wants the application to know that did not stop it.
public enum SyncWarning: Sendable, Equatable {
    /// Applying another client's change set noticed a delete-versus-update (see
    /// ``ApplyReport/Warning``).
    case apply(ApplyReport.Warning, fromClient: SyncIdentifier)
    /// A data rule changed local data outside an apply: the reference rule settling the children
    /// of rows deleted here before a push, or a whole-store re-base merging unpushed changes (see
    /// Docs/Conflicts.md). Its effects are pushed like local edits.
    case settledLocally(ApplyReport.Warning)
    /// A change set could not be downloaded as a verified, readable set and was not applied; the
    /// later sets of the same client wait too, so nothing is applied out of order. The next sync
    /// tries again.
    case unreadableChangeSet(fileName: String, fromClient: SyncIdentifier, reason: String)
    /// A change set was written with a newer schema: it names a table this database does not sync
    /// (`column` is `nil`) or a column its table lacks. It was not applied, and neither were the
    /// later sets of the same client (to keep their order); everything else was applied and local
    /// changes pushed. Once the application migrates its schema, the next sync applies them.
    case upgradeRequired(table: String, column: String?, fromClient: SyncIdentifier, fileName: String)
    /// The remote document was recreated since this database last registered (its integrity key
    /// changed); local data and unpushed changes were kept and the new key adopted.
    case documentWasReset(SyncIdentifier)
    /// Another client had removed this client from the document; it registered again, keeping its
    /// local data.
    case clientWasRemoved(SyncIdentifier)
    /// The last-sync marker could not be written or its predecessor not deleted; the sync itself
    /// succeeded.
    case lastSyncNotRecorded(reason: String)
    /// `count` rows of `table` have a NULL key (the key column is not declared `NOT NULL`): they
    /// cannot be identified on other clients, so they stay on this one, unsynchronized. Reported
    /// by every sync while they exist; nothing else waits for them.
    case rowsWithoutKey(table: String, count: Int)
}
