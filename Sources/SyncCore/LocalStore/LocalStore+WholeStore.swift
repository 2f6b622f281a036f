import Foundation
import GRDB

extension LocalStore {
    /// Checks that the file at `url` is a readable RollingSync snapshot (SQLite `quick_check` and
    /// RollingSync's tables) and returns the identifiers of the change sets it contains (oldest
    /// first) and the number of unpushed changes in its change log.
    /// The file is opened read-only with `configuration` (``SchemaFile/openForReading(_:configuration:)``)
    /// and never changed.
    /// - Parameter configuration: the application's GRDB configuration (``LocalStore/applicationConfiguration``),
    ///   which defines the collations and functions its schema uses.
    /// - Throws: ``MissingDefinitionError`` when the schema needs a collation or function
    ///   `configuration` does not define; ``WholeStoreFileError`` or a GRDB `DatabaseError` saying
    ///   why the file is refused.
    package static func inspectSnapshot(
        at url: URL, configuration: Configuration
    ) throws -> (appliedSetIDs: [String], pendingChanges: Int) {
        let snapshot = try SchemaFile.openForReading(url, configuration: configuration)
        defer { try? snapshot.close() }
        return try MissingDefinitionError.translating {
            try snapshot.read { db in
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
    }

    /// Replaces the synced data of this database with a downloaded whole store and **merges** the
    /// unpushed local changes into it, in **one write transaction** on the application's own
    /// connection: no file is swapped, so the application's open connections stay valid and see
    /// either the old or the new data, never a mix; a failure (or crash) leaves the old data.
    ///
    /// In that transaction, with foreign keys off (``withForeignKeysOff(_:)``), so that replacing
    /// rows never fires an `ON DELETE` action and never fails on a reference:
    /// 1. the local rows with unpushed changes are copied aside;
    /// 2. every synced table's rows are replaced by the snapshot's (capture triggers suppressed);
    ///    RollingSync's per-cell clocks, tombstones and applied sets are replaced by the snapshot's;
    ///    the clock only moves forward; the local change log is **kept**, with its clocks;
    /// 3. each row with unpushed changes is merged as an incoming change would be, with its
    ///    original clock (see ``WholeStoreMerge``): pending deletions stay pending, a newer write
    ///    in the store beats an older local edit, conflicts go to `resolver`, rows the store
    ///    deleted stay deleted, rows the store lacks are re-created;
    /// 4. rows the store holds for references only but a row here still references (see
    ///    ``RowIdentity/holdReferencedRowsNotHere(of:referencedBy:in:moveReferences:)``) are held
    ///    under reserved ids; references left dangling to deleted rows are settled by the
    ///    reference rule (``ReferenceSettlement``), its effects captured as local writes;
    /// 5. `inSameTransaction` runs (callers clear their own bookkeeping there).
    ///
    /// Tables that are not registered for sync are left alone. Validate the file first with
    /// ``inspectSnapshot(at:configuration:)``.
    /// A store written with an older schema installs: the columns (and tables) it lacks keep their
    /// local values. A store written with a newer one (a synced table or a column this database
    /// lacks) is refused with ``LocalStoreError/Code/upgradeRequired`` before anything
    /// changes.
    /// - Throws: ``LocalStoreError`` (upgrade required), ``WholeStoreFileError`` if the snapshot is
    ///   not usable, the resolver's error, or a GRDB error; nothing is changed then.
    package func installWholeStore(
        at url: URL,
        resolver: ConflictResolver = .lastWriterWins,
        inSameTransaction: (Database) throws -> Void = { _ in }
    ) throws -> WholeStoreInstallation {
        try withForeignKeysOff { db in
            try db.execute(sql: "ATTACH DATABASE ? AS rollingsync_snapshot", arguments: [url.path])
            defer { try? db.execute(sql: "DETACH DATABASE rollingsync_snapshot") }
            var installation: WholeStoreInstallation?
            try db.inTransaction(.immediate) {
                _ = try ChangeLog.stamp(in: db)
                let tables = try Self.syncedTables(in: db)
                let triggerGuard = try AppTriggerGuard.install(for: tables, in: db)
                var merge = WholeStoreMerge(
                    db: db, tables: tables, localDatabaseID: databaseID, resolver: resolver, triggerGuard: triggerGuard,
                    store: "rollingsync_snapshot", joinedAt: try LocalSyncState.joinedAt(in: db)
                )
                try merge.keepLocalRows()
                try Self.checkSnapshotSchema(tables, in: db)
                var result = try ChangeLog.withCaptureSuppressed(db) {
                    let identitiesTakenAsIs = try RowIdentity.mapStoreRows(of: tables, store: "rollingsync_snapshot", in: db)
                    try Self.replaceRows(of: tables, identitiesTakenAsIs: identitiesTakenAsIs, guardedBy: triggerGuard, in: db)
                    try ChangeLog.forgetRowids(in: db)
                    try Self.replaceSyncBookkeeping(in: db)
                    try LocalStoreSchema.compactAppliedClocks(in: db)
                    try merge.mergePendingChanges()
                    // A table whose identities were taken as they are holds the store's rows and
                    // identities, unchanged: nothing was written back into it.
                    for table in tables where identitiesTakenAsIs[table.id] == nil { try RowIdentity.reconcile(table, in: db) }
                    try db.execute(sql: "DROP TABLE IF EXISTS temp.rollingsync_store_ids")
                    var settlement = try ReferenceSettlement(db: db, syncedTables: tables)
                    for table in tables where identitiesTakenAsIs[table.id] == nil {
                        let references = settlement.keys(referencing: table).map { (table: $0.childTable, column: $0.childColumns[0]) }
                        try RowIdentity.holdReferencedRowsNotHere(of: table, referencedBy: references, in: db) { from, to in
                            try settlement.moveReferences(to: table, from: from, to: to, guardedBy: triggerGuard)
                        }
                    }
                    var result = merge.installation
                    result.appliedSetCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_applied_sets") ?? 0
                    try settlement.settle(.everything)
                    result.warnings += settlement.warnings
                    return result
                }
                if let triggerGuard {
                    result.warnings += try triggerGuard.takeSkippedWrites()
                    try triggerGuard.remove()
                }
                try inSameTransaction(db)
                installation = result
                return .commit
            }
            return installation ?? WholeStoreInstallation(appliedSetCount: 0, rebasedChanges: 0, updatesOfDeletedRows: [])
        }
    }

    /// Refuses a store written with a newer schema before anything changes: a table it syncs that
    /// this database does not (and did not stop syncing), or a column of a synced table this database lacks (and did not drop).
    private static func checkSnapshotSchema(_ tables: [SyncedTable], in db: Database) throws {
        let local = Dictionary(uniqueKeysWithValues: tables.map { ($0.name.lowercased(), $0) })
        let unsynced = Set(try String.fetchAll(db, sql: "SELECT lower(name) FROM rollingsync_unsynced_tables"))
        for name in try String.fetchAll(db, sql: "SELECT name FROM rollingsync_snapshot.rollingsync_tables ORDER BY name")
        where !unsynced.contains(name.lowercased()) {
            guard let table = local[name.lowercased()] else {
                throw LocalStoreError(.upgradeRequired, table: name)
            }
            let dropped = Set(try String.fetchAll(
                db, sql: "SELECT column_name FROM rollingsync_dropped_columns WHERE table_id = ?", arguments: [table.id]
            ))
            let storeColumns = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_xinfo(?, 'rollingsync_snapshot') WHERE hidden = 0", arguments: [table.name]
            )
            if let newer = storeColumns.first(where: { !table.keyColumns.contains($0) && !table.columns.contains($0) && !dropped.contains($0) }) {
                throw LocalStoreError(.upgradeRequired, table: table.name, column: newer)
            }
        }
    }

    /// Replaces the synced tables' rows with the snapshot's, in two passes over the tables: every
    /// table's rows are removed first, then the store's identities are adopted (see
    /// ``RowIdentity/adoptStoreIdentities(of:takenAsIs:store:in:)``) and every table's store rows written, so
    /// that any row key, a composite one made of references included, names its row when written.
    /// Columns the snapshot lacks (added here since it was written) keep their local values, for
    /// the rows both have; a table the snapshot lacks altogether (synced here since) keeps its rows.
    ///
    /// RollingSync's triggers are set aside for every write. With a trigger guard (the app has
    /// triggers on synced tables) rows are written one per statement, each permitted, so the
    /// app's triggers keep derived data current while their writes to synced tables are skipped;
    /// otherwise in one statement per step (``writeAll(of:_:in:)``): a table is emptied in one
    /// step, and one whose store copy has the same columns copied page by page (8× faster than
    /// row by row on 1M rows), any other in key order.
    private static func replaceRows(
        of tables: [SyncedTable], identitiesTakenAsIs: [Int64: Int64], guardedBy triggerGuard: AppTriggerGuard?, in db: Database
    ) throws {
        var replaced: [(table: SyncedTable, common: [String], extra: [String])] = []
        for table in tables {
            var snapshotColumns = Set(
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?, 'rollingsync_snapshot')", arguments: [table.name])
            )
            guard !snapshotColumns.isEmpty else { continue }
            if table.keyIsRowid { snapshotColumns.formUnion(table.keyColumns) }
            if let missing = table.keyColumns.first(where: { !snapshotColumns.contains($0) }) {
                throw WholeStoreFileError(reason: "its table \(table.name) has no key column \(missing)")
            }
            let common = table.keyColumns + table.columns.filter { snapshotColumns.contains($0) }
            let extra = table.columns.filter { !snapshotColumns.contains($0) }
            let name = table.name.sqlIdentifier
            if !extra.isEmpty {
                try db.execute(sql: """
                    DROP TABLE IF EXISTS \(extraColumns(of: table));
                    CREATE TABLE \(extraColumns(of: table)) AS
                        SELECT \(table.key.columnList), \(extra.map(\.sqlIdentifier).joined(separator: ", ")) FROM main.\(name);
                    """)
            }
            // Rows whose key is NULL are local only: kept here, never taken from the store.
            let syncable = table.keyMayBeNull ? " WHERE \(table.key.isPresent())" : ""
            // Their identities are retired in one statement: the retire trigger is set aside for
            // the deletion (see writeRows).
            try RowIdentity.retireRows(of: table, filter: syncable, in: db)
            try writeRows(of: table, guardedBy: triggerGuard, "DELETE FROM main.\(name)\(syncable)", keys: "SELECT \(table.key.value()) FROM main.\(name)\(syncable)", in: db)
            replaced.append((table, common, extra))
        }
        try RowIdentity.adoptStoreIdentities(
            of: replaced.map(\.table), takenAsIs: identitiesTakenAsIs, store: "rollingsync_snapshot", in: db
        )
        for (table, common, extra) in replaced {
            let name = table.name.sqlIdentifier
            let key = table.key
            let list = common.map(\.sqlIdentifier).joined(separator: ", ")
            // Local ids and references are the store's own: its rows are staged with this
            // database's, unless they are the same (a new client's).
            var source = "rollingsync_snapshot.\(name)"
            if try !RowIdentity.storeValuesStay(of: common, in: table, store: "rollingsync_snapshot", in: db) {
                try db.execute(sql: """
                    DROP TABLE IF EXISTS temp.rollingsync_store_rows;
                    CREATE TEMP TABLE rollingsync_store_rows AS
                        SELECT \(common.map { "\(RowIdentity.storeValue(of: $0, in: table)) AS \($0.sqlIdentifier)" }.joined(separator: ", "))
                        FROM rollingsync_snapshot.\(name) AS s;
                    """)
                source = "temp.rollingsync_store_rows"
            }
            let insert = "INSERT INTO main.\(name) (\(list)) SELECT \(list) FROM \(source) WHERE \(key.isPresent())"
            if triggerGuard != nil {
                try writeRows(of: table, guardedBy: triggerGuard, insert, keys: "SELECT \(key.value()) FROM \(source) WHERE \(key.isPresent())", in: db)
            } else if source == "rollingsync_snapshot.\(name)", extra.isEmpty, !table.keyMayBeNull, try canCopyPageByPage(table, in: db) {
                // Then SQLite copies the table page by page, its indexes included, instead of row by
                // row (when nothing is left in it: the rows of a NULL key stay local).
                try writeAll(of: table, "INSERT INTO main.\(name) SELECT * FROM rollingsync_snapshot.\(name)", in: db)
            } else {
                // In key order, so the key's index is written in order rather than at random places.
                try writeAll(of: table, "\(insert) ORDER BY \(key.columnList)", in: db)
            }
            try db.execute(sql: "DROP TABLE IF EXISTS temp.rollingsync_store_rows")
            if !extra.isEmpty {
                let targets = extra.map(\.sqlIdentifier).joined(separator: ", ")
                try writeRows(
                    of: table, guardedBy: triggerGuard,
                    """
                    UPDATE main.\(name) SET (\(targets)) = (
                        SELECT \(targets) FROM \(extraColumns(of: table)) AS x WHERE \(key.equals("x", "main.\(name)")))
                    WHERE (\(key.columnList)) IN (SELECT \(key.columnList) FROM \(extraColumns(of: table)))
                    """,
                    keys: "SELECT \(key.value()) FROM \(extraColumns(of: table))", in: db
                )
                try db.execute(sql: "DROP TABLE \(extraColumns(of: table))")
            }
        }
    }

    /// Whether the store's copy of `table` can be copied into the local table page by page, its
    /// indexes as they are (SQLite's transfer optimization, which applies when the two schemas
    /// match and falls back to inserting row by row otherwise):
    /// - both have the same columns (``LocalStoreSchema/hasSameColumns(_:in:as:db:)``), none
    ///   hidden or generated, so `INSERT INTO t SELECT * FROM store.t` writes each
    ///   store column into the local column of its name, and no store row has a NULL key;
    /// - the table has a declared key: `SELECT *` leaves out the rowid, which names the rows of a
    ///   table without one (the index that keeps its rowids, partial, rules it out too);
    /// - no index of the local table is on an expression or partial: their entries are computed
    ///   by functions, which the app may define differently on another device, so such tables are
    ///   written row by row and this device computes them. (SQLite inserts the entries of an index
    ///   with another collation than `BINARY` in this device's order, not the store's.)
    private static func canCopyPageByPage(_ table: SyncedTable, in db: Database) throws -> Bool {
        guard !table.keyIsRowid, try LocalStoreSchema.hasSameColumns(table.name, in: "main", as: "rollingsync_snapshot", db: db),
              try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM pragma_table_xinfo(?, 'main') WHERE hidden <> 0)", arguments: [table.name]) == true
        else { return false }
        let computedIndexes = try Int.fetchOne(
            db,
            sql: """
                SELECT count(*) FROM pragma_index_list(?, 'main') AS list
                LEFT JOIN pragma_index_xinfo(list.name, 'main') AS part ON part.key
                WHERE list.partial OR part.cid = -2
                """,
            arguments: [table.name]
        ) ?? 0
        return computedIndexes == 0
    }

    /// Runs `write` on `table`, which has no triggers but RollingSync's (there is no trigger
    /// guard), with them set aside, as every write of the install is (see
    /// ``writeRows(of:guardedBy:_:keys:in:)``): SQLite empties a table in one step (a `DELETE`
    /// without `WHERE`) or copies one page by page only when it has no trigger. Emptying a table
    /// of 200k rows took 0.12 s so, 1.4 s with the triggers in place.
    private static func writeAll(of table: SyncedTable, _ write: String, in db: Database) throws {
        try CaptureTriggers.withTriggersSetAside(tableID: table.id, in: db) { try db.execute(sql: write) }
    }

    /// The temporary copy of a table's columns that a whole store lacks.
    private static func extraColumns(of table: SyncedTable) -> String {
        "temp.\("rollingsync_extra_columns_\(table.id)".sqlIdentifier)"
    }

    /// Runs `write` on `table` with RollingSync's triggers set aside: with capture suppressed they
    /// would do nothing but cost a call per row, and the retire trigger would mark deleted the
    /// identities the install decides itself (``RowIdentity/retireRows(of:filter:in:)``).
    /// Unguarded with ``writeAll(of:_:in:)``; guarded once per row key that `keys` selects, with
    /// `AND` the row's key, each row permitted, so the app's own triggers run.
    private static func writeRows(of table: SyncedTable, guardedBy triggerGuard: AppTriggerGuard?, _ write: String, keys: String, in db: Database) throws {
        guard let triggerGuard else { return try writeAll(of: table, write, in: db) }
        try CaptureTriggers.withTriggersSetAside(tableID: table.id, in: db) {
            let statement = try db.makeStatement(sql: write + (write.contains(" WHERE ") ? " AND " : " WHERE ") + table.key.matches())
            for rowKey in try DatabaseValue.fetchAll(db, sql: keys) {
                try triggerGuard.permit(table, key: rowKey)
                try statement.execute(arguments: StatementArguments(values: try table.key.components(of: rowKey)))
            }
        }
    }

    /// Replaces clocks, tombstones and applied sets with the snapshot's, mapping table ids by name
    /// and the cell clocks' writers by database id; the local change log stays. A store written
    /// before writers were numbered (releases before 2026-11-27) names each cell clock's writer by
    /// its database id (`client_id`).
    ///
    /// A database left with no cell clock (a new client's) takes the store's cell clocks as they
    /// are, and the store's writer numbers with them, when every table they name has the same id
    /// here: in one statement, which SQLite runs page by page (its transfer optimization). Mapped
    /// row by row, 1M clocks took 1.1 s of a new client's pull-store.
    private static func replaceSyncBookkeeping(in db: Database) throws {
        // The clocks and tombstones of a table the store does not sync (synced here since) stay:
        // its applied clocks are folded into its cell clocks while the applied sets that name
        // their writers are still this database's.
        let storeTables = """
            SELECT lt.id FROM main.rollingsync_tables AS lt JOIN rollingsync_snapshot.rollingsync_tables AS st ON st.name = lt.name COLLATE NOCASE
            """
        try db.execute(sql: "DELETE FROM main.rollingsync_applied_clocks WHERE table_id IN (\(storeTables))")
        try LocalStoreSchema.compactAppliedClocks(in: db)
        let mapping = """
            JOIN rollingsync_snapshot.rollingsync_tables AS st ON st.id = s.table_id
            JOIN main.rollingsync_tables AS lt ON lt.name = st.name COLLATE NOCASE
            """
        let (storeWriters, writerMapping) = try db.tableExists("rollingsync_writers", in: "rollingsync_snapshot")
            ? ("SELECT database_id FROM rollingsync_snapshot.rollingsync_writers", """
                LEFT JOIN rollingsync_snapshot.rollingsync_writers AS sw ON sw.number = s.writer
                LEFT JOIN main.rollingsync_writers AS w ON w.database_id = sw.database_id
                """)
            : ("SELECT DISTINCT client_id FROM rollingsync_snapshot.rollingsync_cell_clocks",
                "JOIN main.rollingsync_writers AS w ON w.database_id = s.client_id")
        try db.execute(sql: """
            DELETE FROM main.rollingsync_cell_clocks WHERE table_id IN (\(storeTables));
            DELETE FROM main.rollingsync_tombstones WHERE table_id IN (\(storeTables));
            DELETE FROM main.rollingsync_applied_sets;
            INSERT INTO main.rollingsync_applied_sets (number, set_id, client_id, change_count, maximum_clock, recorded_at)
                SELECT number, set_id, client_id, change_count, maximum_clock, recorded_at
                FROM rollingsync_snapshot.rollingsync_applied_sets;
            INSERT OR IGNORE INTO main.rollingsync_writers (database_id) \(storeWriters);
            """)
        if try cellClocksCanBeTakenAsIs(in: db) {
            try db.execute(sql: """
                DELETE FROM main.rollingsync_writers;
                INSERT INTO main.rollingsync_writers SELECT * FROM rollingsync_snapshot.rollingsync_writers;
                INSERT INTO main.rollingsync_cell_clocks SELECT * FROM rollingsync_snapshot.rollingsync_cell_clocks;
                """)
        } else {
            try insertMappedCellClocks(mapping: mapping, writerMapping: writerMapping, in: db)
        }
        try db.execute(sql: """
            INSERT INTO main.rollingsync_tombstones (table_id, row_key, clock)
                SELECT lt.id, s.row_key, s.clock FROM rollingsync_snapshot.rollingsync_tombstones AS s \(mapping);
            INSERT INTO main.rollingsync_applied_clocks (seq, set_number, table_id, row_key, clocks)
                SELECT s.seq, s.set_number, lt.id, s.row_key, s.clocks
                FROM rollingsync_snapshot.rollingsync_applied_clocks AS s \(mapping);
            UPDATE main.rollingsync_state
                SET clock = max(clock, (SELECT clock FROM rollingsync_snapshot.rollingsync_state));
            """)
    }

    /// Whether the store's cell clocks can be copied as they are (see
    /// ``replaceSyncBookkeeping(in:)``): the store numbers its writers, this database has no cell
    /// clock left (no number of its own writers is in use), the two tables have the same columns
    /// here and in the store, and every table the store's clocks name has the same id here.
    /// - Throws: ``WholeStoreFileError`` when a store clock names a writer the store does not
    ///   list, as ``insertMappedCellClocks(mapping:writerMapping:in:)`` does.
    private static func cellClocksCanBeTakenAsIs(in db: Database) throws -> Bool {
        guard try db.tableExists("rollingsync_writers", in: "rollingsync_snapshot"),
              try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM main.rollingsync_cell_clocks)") == true,
              try ["rollingsync_writers", "rollingsync_cell_clocks"].allSatisfy({
                  try LocalStoreSchema.hasSameColumns($0, in: "main", as: "rollingsync_snapshot", db: db)
              })
        else { return false }
        for id in try LocalStoreSchema.tableIDs(in: "rollingsync_snapshot.rollingsync_cell_clocks", column: "table_id", db: db) {
            let localID = try Int64.fetchOne(db, sql: """
                SELECT lt.id FROM rollingsync_snapshot.rollingsync_tables AS st
                JOIN main.rollingsync_tables AS lt ON lt.name = st.name COLLATE NOCASE WHERE st.id = ?
                """, arguments: [id])
            guard localID == id else { return false }
        }
        if try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM rollingsync_snapshot.rollingsync_cell_clocks
                WHERE writer NOT IN (SELECT number FROM rollingsync_snapshot.rollingsync_writers))
            """) == true {
            throw unlistedWriter
        }
        return true
    }

    /// The refusal of a store whose cell clock names a writer its `rollingsync_writers` lacks.
    private static var unlistedWriter: WholeStoreFileError {
        WholeStoreFileError(reason: "a cell clock in it names a writer that its table rollingsync_writers lacks")
    }

    /// Inserts the store's cell clocks with their table ids and writer numbers mapped to this
    /// database's (`mapping` and `writerMapping` join them on the store's clock `s`).
    private static func insertMappedCellClocks(mapping: String, writerMapping: String, in db: Database) throws {
        // A writer missing from the store's list leaves `writer` NULL, which the column refuses:
        // the clock is not dropped silently.
        do {
            try db.execute(sql: """
                INSERT INTO main.rollingsync_cell_clocks (table_id, row_key, column_name, clock, writer)
                    SELECT lt.id, s.row_key, s.column_name, s.clock, w.number
                    FROM rollingsync_snapshot.rollingsync_cell_clocks AS s \(mapping) \(writerMapping)
                """)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL {
            throw unlistedWriter
        }
    }
}
