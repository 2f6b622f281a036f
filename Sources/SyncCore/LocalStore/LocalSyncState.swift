import Foundation
import GRDB

/// How a local database is bound to a remote document, kept in RollingSync's own tables of that
/// database (created by the `rollingsync_registration` migrations of ``LocalStoreSchema``); the
/// only reader and writer of those tables:
///
/// - `rollingsync_registration`: one row; the document, this client's remote identifier, the
///   integrity key adopted at registration, whether registration completed, the names of this
///   client's last-sync markers (so the next sync deletes them without a listing), and what a
///   first registration leaves to the next sync (a whole store to install or to upload).
/// - `rollingsync_outgoing`: at most one row; the change set being pushed, recorded *before* its
///   upload, so a sync that fails with the upload's outcome unknown finds out on the next run
///   whether the set arrived (see ``OutgoingChangeSet``).
///
/// Keeping this in the database rather than in user defaults or a side file means the binding
/// travels with the data, and a database copied elsewhere keeps it.
struct LocalSyncState: Sendable {
    /// The registration row.
    struct Registration: Sendable, Equatable {
        var documentID: String
        var clientID: String
        var integrityKey: String?
        var isRegistered: Bool
        /// The names of this client's last-sync markers that may exist remotely (normally one; more
        /// after a sync failed while replacing its marker).
        var recentSyncMarkers: [String]
        /// Set when a whole store was installed: the next sync also lists this client's own change
        /// sets and applies those the store did not contain.
        var needsOwnSets: Bool
        /// Set by a first join (see ``markRegistered(integrityKey:created:firstJoin:rejoining:)``) until a whole store
        /// is installed or the next sync finds none: the newest clock here at the join. Whatever
        /// was logged here up to it predates the join and yields to the document's version of
        /// the same row in that install (``WholeStoreMerge``).
        var joinedAt: HLCTimestamp?
        /// Set when this database created the document while holding data (rows, or the history
        /// of a document it synced before), until a whole store of it is uploaded: no change set
        /// carries that data to the clients that join.
        var uploadsWholeStore: Bool
    }

    private let writer: any DatabaseWriter

    /// Removes any binding to a document from the database file at `url` (not open elsewhere):
    /// the registration and the outgoing set, as in a database that never synced. Used for files
    /// made from snapshots (a downloaded or restored whole store).
    static func removeBinding(ofDatabaseAt url: URL) throws {
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            for table in ["rollingsync_registration", "rollingsync_outgoing"] where try db.tableExists(table) {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
        try database.close()
    }

    /// Opens the state on `writer`, a database a ``LocalStore`` was opened on (its one migrator,
    /// ``LocalStoreSchema/migrator``, creates the registration tables with all others).
    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// The registration row, if this database was ever configured for a document.
    func registration() throws -> Registration? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM rollingsync_registration").map { row in
                Registration(
                    documentID: row["document_id"],
                    clientID: row["remote_client_id"],
                    integrityKey: row["integrity_key"],
                    isRegistered: row["registered"],
                    recentSyncMarkers: (row["recent_sync_markers"] as String?)?
                        .split(separator: "\n").map(String.init) ?? [],
                    needsOwnSets: row["needs_own_sets"],
                    joinedAt: Self.clock(row["joined_at_clock"]),
                    uploadsWholeStore: row["uploads_whole_store"]
                )
            }
        }
    }

    /// Binds the database to `documentID` as `clientID` (unregistered), unless it is bound already.
    /// - Returns: the registration row, new or existing.
    func bind(documentID: String, clientID: String) throws -> Registration {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO rollingsync_registration (id, document_id, remote_client_id, registered)
                    VALUES (1, ?, ?, 0) ON CONFLICT DO NOTHING
                    """,
                arguments: [documentID, clientID]
            )
        }
        guard let registration = try registration() else {
            throw SyncError(.local, "the registration of document \(documentID) could not be recorded in the database")
        }
        return registration
    }

    /// Records a completed registration with its integrity key.
    ///
    /// A database that **created** the document (`created`) while its synced tables hold rows
    /// no logged insert covers (rows that predate the registration of their table), or after it
    /// applied change sets of a document it synced before, records that its next sync uploads a
    /// whole store (``Registration/uploadsWholeStore``): no change set carries that data.
    ///
    /// A **first join** (`firstJoin`: this database never adopted an integrity key and joins a
    /// document another client created) of a database that never applied a change set publishes
    /// the rows its synced tables already hold: each is logged as an insert, in the same
    /// transaction, and the log is stamped, so their clocks are this moment's. That clock is kept
    /// (``Registration/joinedAt``), even with no rows, until the next sync has installed the
    /// document's newest whole store (or found none): the rows that predate the creator's
    /// registration are in no change set. In that install the rows logged up to the join yield
    /// to the document's version of the same key; the rows the document lacks are pushed by
    /// the sync. Without this, a joining client's own rows were neither changes nor in any store,
    /// and installing a store removed them.
    ///
    /// A database that **registers again after its change sets were deleted** remotely
    /// (`rejoining`: it was removed from the document, which kept its integrity key) logs again
    /// every write it published that still stands here, with its original clock
    /// (``ChangeLog/recordPublishedWrites(of:databaseID:in:)``): some clients applied those sets
    /// and others never will, and the whole store its next sync re-bases on may lack them. Marked
    /// as published writes, they meet other writes by their clocks alone, never as local edits in
    /// conflict, and lose wherever another client wrote later. Registering with a recreated
    /// document (another integrity key) before they were pushed forgets them; registering again
    /// after another removal logs them afresh.
    ///
    /// Registering again otherwise keeps what an earlier registration left to the next sync.
    /// - Returns: the rows that predate this registration and that no change carried: those a
    ///   creation's whole store carries, or those a first join published; 0 otherwise.
    func markRegistered(integrityKey: String, created: Bool, firstJoin: Bool, rejoining: Bool) throws -> Int {
        try write { db in
            var existingRows = 0
            let tables = try LocalStore.syncedTables(in: db)
            // Writes logged again by an earlier registration and not pushed yet: logged afresh
            // by a rejoin, forgotten for a recreated document (before a creation counts the
            // rows no logged insert covers).
            let adopted = try String.fetchOne(db, sql: "SELECT integrity_key FROM rollingsync_registration")
            if rejoining || adopted.map({ $0 != integrityKey }) == true {
                try ChangeLog.dropRepublishedWrites(in: db)
            }
            let appliedSets = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_applied_sets)") == true
            if created {
                existingRows = try tables.reduce(0) { $0 + (try ChangeLog.countRowsWithoutLoggedInsert(of: $1, in: db)) }
                try db.execute(
                    sql: "UPDATE rollingsync_registration SET joined_at_clock = NULL, uploads_whole_store = ?",
                    arguments: [appliedSets || existingRows > 0]
                )
            } else if firstJoin, !appliedSets {
                existingRows = try tables.reduce(0) { $0 + (try ChangeLog.recordEveryRow(of: $1, in: db)) }
                _ = try ChangeLog.stamp(in: db)
                try db.execute(sql: "UPDATE rollingsync_registration SET joined_at_clock = (SELECT clock FROM rollingsync_state)")
            } else if rejoining {
                let databaseID = try String.fetchOne(db, sql: "SELECT client_id FROM rollingsync_state") ?? ""
                _ = try ChangeLog.recordPublishedWrites(of: tables, databaseID: databaseID, in: db)
            }
            try db.execute(sql: "UPDATE rollingsync_registration SET integrity_key = ?, registered = 1", arguments: [integrityKey])
            return existingRows
        }
    }

    /// Records that a whole store of this database was uploaded (see
    /// ``Registration/uploadsWholeStore``).
    func recordWholeStoreUploaded() throws {
        try write { db in try db.execute(sql: "UPDATE rollingsync_registration SET uploads_whole_store = 0") }
    }

    /// Records that a first join is complete without a whole store (the document has none): the
    /// rows it published are ordinary local changes from now on.
    func finishJoining() throws {
        try write { db in try db.execute(sql: "UPDATE rollingsync_registration SET joined_at_clock = NULL") }
    }

    /// The clock of a first join not completed yet (``Registration/joinedAt``), in `db`'s transaction.
    static func joinedAt(in db: Database) throws -> HLCTimestamp? {
        clock(try Int64.fetchOne(db, sql: "SELECT joined_at_clock FROM rollingsync_registration"))
    }

    /// A clock as the registration row stores it.
    private static func clock(_ value: Int64?) -> HLCTimestamp? {
        value.map { HLCTimestamp(rawValue: UInt64(bitPattern: $0)) }
    }

    /// Records that the registration must be checked again (the document was found reset or this
    /// client removed); the adopted integrity key is kept for the comparison.
    func markUnregistered() throws {
        try write { db in try db.execute(sql: "UPDATE rollingsync_registration SET registered = 0") }
    }

    /// Records the names of this client's last-sync markers that may exist remotely.
    func setRecentSyncMarkers(_ fileNames: [String]) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE rollingsync_registration SET recent_sync_markers = ?",
                arguments: [fileNames.joined(separator: "\n")]
            )
        }
    }

    /// Records whether the next sync must apply this client's own sets missing locally.
    func setNeedsOwnSets(_ needed: Bool) throws {
        try write { db in try db.execute(sql: "UPDATE rollingsync_registration SET needs_own_sets = ?", arguments: [needed]) }
    }

    /// Records, in the caller's transaction `db`, that a whole store was installed: the outgoing
    /// set is forgotten (its changes are pending again and go out in a new set), the next sync
    /// must also apply this client's own sets the store lacks, and a first join is complete.
    static func recordWholeStoreInstalled(in db: Database) throws {
        try db.execute(sql: "DELETE FROM rollingsync_outgoing")
        try db.execute(sql: "UPDATE rollingsync_registration SET needs_own_sets = 1, joined_at_clock = NULL")
    }

    /// The change set whose upload has started but is not known to have finished.
    func outgoing() throws -> OutgoingChangeSet? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM rollingsync_outgoing").map(OutgoingChangeSet.init(row:))
        }
    }

    /// Records `set` as being uploaded (replacing any earlier record).
    func setOutgoing(_ set: OutgoingChangeSet) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM rollingsync_outgoing")
            try db.execute(
                sql: """
                    INSERT INTO rollingsync_outgoing
                        (id, file_name, set_id, client_id, change_count, minimum_clock, maximum_clock, byte_count, last_sequence)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: set.databaseArguments
            )
        }
    }

    /// Forgets the outgoing set.
    func clearOutgoing() throws {
        try write { db in try db.execute(sql: "DELETE FROM rollingsync_outgoing") }
    }

    private func read<Value>(_ body: (Database) throws -> Value) throws -> Value {
        do {
            return try writer.read(body)
        } catch {
            throw Self.localError(error)
        }
    }

    private func write<Value>(_ body: (Database) throws -> Value) throws -> Value {
        do {
            return try writer.write(body)
        } catch {
            throw Self.localError(error)
        }
    }

    private static func localError(_ error: any Error) -> SyncError {
        (error as? SyncError) ?? SyncError(.local, "RollingSync's registration tables could not be used: \(error)", underlying: error)
    }
}
