import GRDB

/// A local change set on its way to the remote: its remote name and what ``LocalStore/markPushed(_:)``
/// needs once it has arrived.
///
/// Recorded in the database before the upload starts. If the sync fails with the upload's outcome
/// unknown (the reply was lost), the next sync asks the remote whether the file exists: uploads are
/// atomic, so a present file is complete and is marked pushed without uploading again; an absent
/// one is forgotten and its changes, still pending, go out in a fresh set. Either way nothing is
/// lost and no change is published twice.
struct OutgoingChangeSet: Sendable, Equatable {
    /// The remote file name.
    var name: ChangeSetName
    /// The set as written, for marking it pushed.
    var pending: PendingChangeSet

    init(name: ChangeSetName, pending: PendingChangeSet) {
        self.name = name
        self.pending = pending
    }

    init(row: Row) throws {
        let fileName: String = row["file_name"]
        guard let name = ChangeSetName(fileName: fileName) else {
            throw SyncError(.local, "the database records an outgoing change set with an invalid name '\(fileName)'")
        }
        self.name = name
        let clock = { (column: String) in HLCTimestamp(rawValue: UInt64(bitPattern: row[column] as Int64)) }
        pending = PendingChangeSet(
            summary: ChangeSetSummary(
                header: ChangeSetHeader(setID: row["set_id"], databaseID: row["client_id"]),
                changeCount: row["change_count"],
                minimumClock: clock("minimum_clock"),
                maximumClock: clock("maximum_clock"),
                byteCount: row["byte_count"]
            ),
            lastSequence: row["last_sequence"]
        )
    }

    var databaseArguments: StatementArguments {
        let summary = pending.summary
        return [
            name.fileName, summary.header.setID, summary.header.databaseID, summary.changeCount,
            summary.minimumClock.databaseInteger, summary.maximumClock.databaseInteger, summary.byteCount,
            pending.lastSequence,
        ]
    }
}
