import GRDB

/// Something a registration or sync wants the application to know that did not stop it.
///
/// The set of kinds is open: later releases add kinds, so a `switch` needs an `@unknown default:`
/// (an app built against this release keeps compiling). ``description`` says each one in a
/// sentence for people; it may name rows by their keys (the log never does).
@nonexhaustive
public enum SyncWarning: Sendable, Equatable, CustomStringConvertible {
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
    /// A change set was not applied because it changes a row this database has not received, and
    /// change sets of other clients are held back (unreadable, or needing a newer schema), one of
    /// which may create that row: applying it now would let the row's older creation win when it
    /// arrives. It waits with them, and so do the later sets of the same client; everything else
    /// was applied.
    case waitsForHeldBackSets(fileName: String, fromClient: SyncIdentifier, reason: String)
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

extension SyncWarning {
    public var description: String {
        switch self {
        case .apply(let warning, let client):
            warning.description(from: "\(client)")
        case .settledLocally(let warning):
            warning.description(from: nil)
        case .unreadableChangeSet(let fileName, let client, let reason):
            "change set \(fileName) of \(client) could not be read and was skipped: \(reason)"
        case .waitsForHeldBackSets(let fileName, let client, let reason):
            "change set \(fileName) of \(client) waits for change sets held back before it: \(reason)"
        case .documentWasReset(let document):
            "document \(document) was recreated; local data was kept and registered again"
        case .clientWasRemoved(let document):
            "this client had been removed from \(document); local data was kept and registered again"
        case .lastSyncNotRecorded(let reason):
            "the last-sync marker was not written: \(reason)"
        case .rowsWithoutKey(let table, let count):
            "\(count) row\(count == 1 ? "" : "s") of \(table) \(count == 1 ? "has" : "have") no key (NULL) and stay\(count == 1 ? "s" : "") on this client, unsynchronized; give \(count == 1 ? "it a key" : "them keys") to sync \(count == 1 ? "it" : "them")"
        case .upgradeRequired(let table, let column?, let client, let fileName):
            "change set \(fileName) of \(client) needs column \(table).\(column), which this database lacks; it waits until you migrate (upgrade required)"
        case .upgradeRequired(let table, nil, let client, let fileName):
            "change set \(fileName) of \(client) changes table \(table), which this database does not sync; it waits until you add it (upgrade required)"
        }
    }
}
