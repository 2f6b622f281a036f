import Foundation
import GRDB

extension LocalStore {
    /// Checks that the file at `url` is a readable RollingSync snapshot (SQLite `quick_check` and
    /// RollingSync's tables) and returns the identifiers of the change sets it contains (oldest
    /// first) and the number of unpushed changes in its change log.
    /// The file is opened read-only and never changed.
    /// - Throws: ``WholeStoreFileError`` or a GRDB `DatabaseError` saying why the file is refused.
    public static func inspectSnapshot(at url: URL) throws -> (appliedSetIDs: [String], pendingChanges: Int) {
        var configuration = Configuration()
        configuration.readonly = true
        let snapshot = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? snapshot.close() }
        return try snapshot.read { db in
            let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard check == ["ok"] else {
                throw WholeStoreFileError(reason: "SQLite reports damage: \(check.prefix(3).joined(separator: "; "))")
            }
            for table in ["rollingsync_state", "rollingsync_tables", "rollingsync_applied_sets", "rollingsync_changes"] where try !db.tableExists(table) {
                throw WholeStoreFileError(reason: "it has no table \(table); it is not a RollingSync store")
            }
            let ids = try String.fetchAll(db, sql: "SELECT set_id FROM rollingsync_applied_sets ORDER BY maximum_clock, set_id")
            return (ids, try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_changes") ?? 0)
        }
    }

    /// Replaces the synced data of this database with a downloaded whole store, keeping and
    /// re-basing the unpushed local changes, in **one write transaction** on the application's own
    /// connection: no file is swapped, so the application's open connections stay valid and see
    /// either the old or the new data, never a mix; a failure (or crash) leaves the old data.
    ///
    /// In that transaction:
    /// 1. the unpushed local changes are read (with their current values);
    /// 2. every synced table's rows are replaced by the snapshot's (capture triggers suppressed,
    ///    foreign keys deferred to the commit); RollingSync's per-cell clocks, tombstones and applied
    ///    sets are replaced by the snapshot's; the clock only moves forward;
    /// 3. the unpushed changes are written again as ordinary local writes on top (captured again,
    ///    so they are pushed by the next sync): inserts and updates set the changed columns
    ///    (re-creating an inserted row if needed), deletions delete. An update of a row the
    ///    snapshot no longer has is not re-applied (deletion wins) and is reported.
    /// 4. `inSameTransaction` runs (callers clear their own bookkeeping there).
    ///
    /// Tables that are not registered for sync are left alone. Validate the file first with
    /// ``inspectSnapshot(at:)``.
    /// - Throws: ``WholeStoreFileError`` if the snapshot lacks a synced table or column, or a GRDB
    ///   error; nothing is changed then.
    public func installWholeStore(
        at url: URL,
        inSameTransaction: (Database) throws -> Void = { _ in }
    ) throws -> WholeStoreInstallation {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS rollingsync_snapshot", arguments: [url.path])
            defer { try? db.execute(sql: "DETACH DATABASE rollingsync_snapshot") }
            var installation = WholeStoreInstallation(appliedSetCount: 0, rebasedChanges: 0, updatesOfDeletedRows: [])
            try db.inTransaction {
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                _ = try ChangeLogClock.stamp(in: db)
                var pending: [RowChange] = []
                _ = try Self.readPendingChanges(in: db, upTo: Int64.max) { pending.append($0) }
                let tables = try Self.syncedTables(in: db)
                try db.execute(sql: "UPDATE rollingsync_state SET applying = 1")
                for table in tables {
                    try Self.replaceRows(of: table, in: db)
                }
                try Self.replaceSyncBookkeeping(in: db)
                try db.execute(sql: "UPDATE rollingsync_state SET applying = 0")
                installation.appliedSetCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_applied_sets") ?? 0
                let byName = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
                for change in pending {
                    guard let table = byName[change.table] else { continue }
                    if try Self.rewrite(change, table: table, in: db) {
                        installation.rebasedChanges += 1
                    } else {
                        installation.updatesOfDeletedRows.append(.init(table: change.table, key: "\(change.key)"))
                    }
                }
                try inSameTransaction(db)
                return .commit
            }
            return installation
        }
    }

    private static func replaceRows(of table: SyncedTable, in db: Database) throws {
        let snapshotColumns = Set(
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?, 'rollingsync_snapshot')", arguments: [table.name])
        )
        guard !snapshotColumns.isEmpty else {
            throw WholeStoreFileError(reason: "it has no table \(table.name)")
        }
        let columns = [table.keyColumn] + table.columns
        if let missing = columns.first(where: { !snapshotColumns.contains($0) }) {
            throw WholeStoreFileError(reason: "its table \(table.name) has no column \(missing) (it was written with an older schema)")
        }
        let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let name = table.name.quotedDatabaseIdentifier
        try db.execute(sql: "DELETE FROM main.\(name)")
        try db.execute(sql: "INSERT INTO main.\(name) (\(list)) SELECT \(list) FROM rollingsync_snapshot.\(name)")
    }

    /// Replaces clocks, tombstones and applied sets with the snapshot's, mapping table ids by name.
    private static func replaceSyncBookkeeping(in db: Database) throws {
        let mapping = """
            JOIN rollingsync_snapshot.rollingsync_tables AS st ON st.id = s.table_id
            JOIN main.rollingsync_tables AS lt ON lt.name = st.name
            """
        try db.execute(sql: """
            DELETE FROM main.rollingsync_changes;
            DELETE FROM main.rollingsync_cell_clocks;
            DELETE FROM main.rollingsync_tombstones;
            DELETE FROM main.rollingsync_applied_clocks;
            DELETE FROM main.rollingsync_applied_sets;
            INSERT INTO main.rollingsync_applied_sets (number, set_id, client_id, change_count, maximum_clock, recorded_at)
                SELECT number, set_id, client_id, change_count, maximum_clock, recorded_at
                FROM rollingsync_snapshot.rollingsync_applied_sets;
            INSERT INTO main.rollingsync_cell_clocks (table_id, row_key, column_name, clock, client_id)
                SELECT lt.id, s.row_key, s.column_name, s.clock, s.client_id
                FROM rollingsync_snapshot.rollingsync_cell_clocks AS s \(mapping);
            INSERT INTO main.rollingsync_tombstones (table_id, row_key, clock)
                SELECT lt.id, s.row_key, s.clock FROM rollingsync_snapshot.rollingsync_tombstones AS s \(mapping);
            INSERT INTO main.rollingsync_applied_clocks (seq, set_number, table_id, row_key, clocks)
                SELECT s.seq, s.set_number, lt.id, s.row_key, s.clocks
                FROM rollingsync_snapshot.rollingsync_applied_clocks AS s \(mapping);
            UPDATE main.rollingsync_state
                SET clock = max(clock, (SELECT clock FROM rollingsync_snapshot.rollingsync_state));
            """)
    }

    /// Writes one unpushed change again as a local write; false for an update of a missing row.
    private static func rewrite(_ change: RowChange, table: SyncedTable, in db: Database) throws -> Bool {
        let name = table.name.quotedDatabaseIdentifier
        let key = table.keyColumn.quotedDatabaseIdentifier
        let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(name) WHERE \(key) = ?)", arguments: [change.key]) ?? false
        switch change.kind {
        case .delete:
            try db.execute(sql: "DELETE FROM \(name) WHERE \(key) = ?", arguments: [change.key])
        case .update where !exists:
            return false
        case .insert where !exists:
            let columns = [table.keyColumn] + change.columns.map(\.name)
            let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            try db.execute(
                sql: "INSERT INTO \(name) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(placeholders))",
                arguments: StatementArguments([change.key] + change.columns.map(\.value))
            )
        case .insert, .update:
            guard !change.columns.isEmpty else { return true }
            let assignments = change.columns.map { "\($0.name.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")
            try db.execute(
                sql: "UPDATE \(name) SET \(assignments) WHERE \(key) = ?",
                arguments: StatementArguments(change.columns.map(\.value) + [change.key])
            )
        }
        return true
    }
}
