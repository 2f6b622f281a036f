import Foundation
import GRDB

extension LocalStore {
    /// Writes a consistent, compact copy of the whole database (application tables and RollingSync's
    /// own tables) to a new file, for whole-store upload, while the application keeps writing.
    ///
    /// Uses `VACUUM INTO` on a reading connection: the copy reflects exactly one committed state (no
    /// half transaction), has no WAL or journal beside it, and is written without blocking writers of
    /// a `DatabasePool` (a `DatabaseQueue` serializes it with its writes).
    /// - Parameter url: the destination; it must not exist yet.
    /// - Throws: a GRDB `DatabaseError` (e.g. when the destination exists) or a file error.
    public func snapshot(to url: URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path])
        }
        try writer.unsafeRead { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [url.path])
        }
    }
}

extension LocalStore {
    /// Turns a snapshot written by another client's ``snapshot(to:)`` (a downloaded whole store) into
    /// this client's own database, before it replaces the local file and is opened with
    /// ``init(writer:)``.
    ///
    /// The snapshot keeps everything the sync needs (the rows, the applied set ids, the clocks of
    /// pushed and applied cells, the tombstones); this call gives it `clientID` and drops the
    /// uploader's unpushed change log, which the uploader itself will still push (applying that set
    /// later rewrites values the snapshot already holds). The clock floor is kept, so new local
    /// changes are newer than everything in the snapshot.
    /// - Parameters:
    ///   - url: the snapshot file (not open elsewhere).
    ///   - clientID: the identity to adopt, usually the local client's existing ``clientID``; a fresh
    ///     UUID when `nil`.
    /// - Throws: a GRDB `DatabaseError` if the file is not a RollingSync database.
    public static func adoptSnapshot(at url: URL, clientID: String? = nil) throws {
        let snapshot = try DatabaseQueue(path: url.path)
        try snapshot.write { db in
            try ChangeLogClock.stamp(in: db)
            try db.execute(
                sql: "UPDATE rollingsync_state SET client_id = ?, applying = 0; DELETE FROM rollingsync_changes;",
                arguments: [clientID ?? UUID().uuidString]
            )
        }
        try snapshot.close()
    }
}

extension LocalStore {
    /// Empties a snapshot (a file written by ``snapshot(to:)``, not open elsewhere) down to its
    /// schema: every row of every synced table and all of RollingSync's history (change log,
    /// clocks, tombstones, applied sets, removed rows) is deleted; the synced-table registrations,
    /// dropped columns and the clock floor stay. Tables that are not synced keep their rows.
    /// Point-in-time restore starts from such a file when it replays a document from its first
    /// change set.
    static func emptySnapshot(at url: URL) throws {
        let snapshot = try DatabaseQueue(path: url.path)
        try snapshot.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                for table in try syncedTables(in: db) {
                    try db.execute(sql: "DELETE FROM \(table.name.sqlIdentifier)")
                }
                for table in ["changes", "cell_clocks", "applied_clocks", "tombstones", "applied_sets", "removed_rows"] {
                    try db.execute(sql: "DELETE FROM \(LocalStoreSchema.prefix)\(table)")
                }
                return .commit
            }
        }
        try snapshot.close()
    }
}
