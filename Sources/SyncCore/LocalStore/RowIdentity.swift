import GRDB

/// The global identities of the rows of synced tables whose keys each database assigns on its own
/// (``SyncedTable/keyIsLocal``: integer keys, rowids), kept in `rollingsync_identities`; the one
/// owner of that table (`SourceStructureTests` keeps it so).
///
/// An app inserts rows with `NULL` ids and SQLite numbers them per database, so two clients create
/// "row 7" independently. RollingSync gives every such row a hidden global identity (as
/// TICoreDataSync's `ticdsSyncID`) and names it by that identity wherever it refers to a row:
/// change log, change sets, clocks, tombstones. The local id is the app's and never changes under
/// its feet:
/// - **A local row** gets its identity when it is inserted (the capture trigger) or when its table
///   is registered: its id, `@`, and 16 random hex digits (`7@3f9c0a51d2e4b687`). The id is the
///   *preferred id* other clients give the row.
/// - **A row from another client** takes its preferred id where no row and no reserved identity
///   has it here, and the next free id otherwise (above every id in the table, in the identity
///   map and in `sqlite_sequence`, so `AUTOINCREMENT` never hands out an id twice: SQLite raises
///   the sequence past an explicit id itself). See ``claim(_:in:using:db:moveReferences:)``.
/// - **A reference to a row not known here yet** (a child set that arrived before its parent's)
///   reserves the identity under a negative id, which SQLite never hands out; the child holds it
///   until the parent arrives, takes its real id, and the references follow (see
///   ``claim(_:in:using:db:moveReferences:)``).
/// - **A deleted row** keeps its identity, marked deleted, so the references it left and the
///   children deleted with it are still named by it; a later row that takes the same id replaces
///   it.
///
/// - **A row a re-base took out** because the whole store does not have it yet (this client pushed
///   it after the store was written) is marked absent: no other client's row takes its id, and
///   the row returns to it when its set is applied again. A row the store holds for references
///   only (not arrived where it was written) that a row here references is held under a reserved
///   id, as a row not arrived yet is (see ``holdReferencedRowsNotHere(of:referencedBy:in:moveReferences:)``).
///
/// A row's local id is its key's value (its rowid in a table without a key). States: `0` live,
/// `1` deleted, `2` reserved, `3` absent. A row that comes back (re-created after its deletion, or
/// returning after a re-base) takes its former id again where it can.
enum RowIdentity {
    static let live = 0
    static let deleted = 1
    static let reserved = 2
    /// A row a re-base took out because the whole store lacks it (yet): its id stays its own.
    static let absent = 3

    /// The SQL expression of the global identity of the row whose local id is the SQL expression
    /// `local` in the table `tableID` (`NULL` when it has none).
    static func global(ofLocal local: String, tableID: Int64) -> String {
        "(SELECT rollingsync_global FROM rollingsync_identities WHERE rollingsync_table = \(tableID) AND rollingsync_local = \(local))"
    }

    /// The SQL expression of the local id of the row whose global identity is the SQL expression
    /// `global` in the table `tableID` (`NULL` when it has none).
    static func local(ofGlobal global: String, tableID: Int64) -> String {
        "(SELECT rollingsync_local FROM rollingsync_identities WHERE rollingsync_table = \(tableID) AND rollingsync_global = \(global))"
    }

    /// The SQL expression of a new global identity for the local id `local`.
    private static func newIdentity(for local: String) -> String {
        "\(local) || '@' || lower(hex(randomblob(8)))"
    }

    /// The trigger statement giving the row whose local id is `local` (`new.id`) a new identity,
    /// unless it has a live one (an `INSERT OR REPLACE` of an existing row keeps its identity).
    static func assignment(tableID: Int64, local: String) -> String {
        """
        INSERT INTO rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global)
            SELECT \(tableID), \(local), \(newIdentity(for: local)) WHERE \(local) IS NOT NULL
            ON CONFLICT (rollingsync_table, rollingsync_local) DO UPDATE SET rollingsync_global = excluded.rollingsync_global, rollingsync_status = \(live) WHERE rollingsync_status <> \(live);
        """
    }

    /// The statement marking deleted the identities whose local id meets `localID`, a condition on
    /// it (`= old."id"` in the retire trigger).
    static func retirement(tableID: Int64, localID: String) -> String {
        "UPDATE rollingsync_identities SET rollingsync_status = \(deleted) WHERE rollingsync_table = \(tableID) AND rollingsync_local \(localID);"
    }

    /// Retires the identities of the rows of `table` that `filter` (`""` or ` WHERE …`) selects,
    /// which a re-base is about to replace with the store's, its triggers set aside (after
    /// ``mapStoreRows(of:store:in:)``): as the retire trigger would, it marks them deleted, except
    /// - an identity the store has live at the same local id stays live: its row returns as it is;
    /// - a live identity the store lacks is marked absent: the row was this client's, not pushed
    ///   before the store was written, and returns to its id when its set is applied again.
    ///
    /// Nothing for a table whose key is not local. Marking every identity deleted and then most of
    /// them live again (deleting and recording them anew) took 3.6 s of a 1M-row re-base's 7.8 s.
    ///
    /// Each identity finds its entry in the store's map by local id (an identity known here keeps
    /// its local id), through an index made here, where there are rows (0.5 s for 1M entries), on
    /// every column the lookup tests: SQLite has no statistics on the map, and with an index on
    /// `local_id` alone it chose to scan the table's entries for each identity (a re-base of 1M
    /// rows did not finish in 10 minutes).
    static func retireRows(of table: SyncedTable, filter: String, in db: Database) throws {
        guard table.keyIsLocal else { return }
        let key = table.keyColumns[0].sqlIdentifier
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM main.\(table.name.sqlIdentifier)\(filter))") == true else { return }
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS temp.rollingsync_store_ids_local ON rollingsync_store_ids (table_id, local_id, global, kept)
            """)
        let inStore = """
            SELECT 1 FROM temp.rollingsync_store_ids AS r
            WHERE r.table_id = \(table.id) AND r.local_id = i.rollingsync_local AND r.global = i.rollingsync_global
            """
        try db.execute(sql: """
            UPDATE main.rollingsync_identities AS i
            SET rollingsync_status = CASE WHEN rollingsync_status = \(live) AND NOT EXISTS (\(inStore)) THEN \(absent) ELSE \(deleted) END
            WHERE rollingsync_table = \(table.id) AND rollingsync_local IN (SELECT \(key) FROM main.\(table.name.sqlIdentifier)\(filter))
              AND NOT EXISTS (\(inStore) AND r.kept)
            """)
    }

    /// Gives every row of `table` without a live identity a new one (a table being registered).
    static func assignEveryRow(of table: SyncedTable, in db: Database) throws {
        guard table.keyIsLocal, let key = table.keyColumns.first?.sqlIdentifier else { return }
        try db.execute(sql: """
            INSERT INTO rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global)
            SELECT \(table.id), \(key), \(newIdentity(for: key)) FROM main.\(table.name.sqlIdentifier) WHERE \(key) IS NOT NULL
            ON CONFLICT (rollingsync_table, rollingsync_local) DO UPDATE SET rollingsync_global = excluded.rollingsync_global, rollingsync_status = \(live) WHERE rollingsync_status <> \(live)
            """)
    }

    /// Makes the identities of the existing rows of `table` live (rows RollingSync wrote back with
    /// capture suppressed, as a re-base does for rows with unpushed changes) and gives the rows
    /// without one a new one, in one pass over the table: after a re-base of 1M rows, making the
    /// live ones live again and then offering every row a new one took 1.2 s; this takes 0.3 s.
    static func reconcile(_ table: SyncedTable, in db: Database) throws {
        guard table.keyIsLocal, let key = table.keyColumns.first.map({ "t.\($0.sqlIdentifier)" }) else { return }
        try db.execute(sql: """
            INSERT INTO rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global)
            SELECT \(table.id), \(key), \(newIdentity(for: key)) FROM main.\(table.name.sqlIdentifier) AS t
            WHERE \(key) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rollingsync_identities
                WHERE rollingsync_table = \(table.id) AND rollingsync_local = \(key) AND rollingsync_status = \(live))
            ON CONFLICT (rollingsync_table, rollingsync_local) DO UPDATE SET rollingsync_status = \(live)
            """)
    }

    // MARK: Re-basing on a whole store

    /// Decides, before a re-base replaces the rows of the tables whose keys are local with a whole
    /// store's (the database attached as `store`), the local id of every identity of the store, in
    /// `temp.rollingsync_store_ids`: a row known here keeps its local id (ids the app was given
    /// never move); another takes its id in the store where nothing here has it, and the next
    /// free id otherwise. An identity the store holds for references only (reserved, deleted, or
    /// absent there) keeps its local id here if known, and is reserved here otherwise, so the
    /// store's references to it follow it. The rows' identities are adopted later (see
    /// ``adoptStoreIdentities(of:takenAsIs:store:in:)``).
    ///
    /// A row keeps its store id where no identity and no row here has that id: no other store row
    /// can hold it here, since the ids known here are identities here and the store's ids are
    /// distinct. That is decided as the store's identities are read, in one pass (deciding it in
    /// a second pass, which also looked up the other store rows by local id, took 1.6 s of a new
    /// client's 7.2 s pull-store of 1M rows). An identity live both here and in the store is
    /// `kept`: it stays as it is (see ``retireRows(of:filter:in:)``).
    ///
    /// **A table of which this database has nothing** (no row, no identity, no pending change: a
    /// new client's) is not mapped: it takes the store's identities as they are (see
    /// ``adoptStoreIdentities(of:takenAsIs:store:in:)``), each at its local id and in its state in
    /// the store, so its rows hold exactly the ids and references they hold in the store, whose
    /// identities are consistent with them there, and nothing is written back into it. Mapping
    /// and then recording 1M identities took 1.6 s of a new client's 3.9 s pull-store. Mapped,
    /// the same rows keep their ids, but the store's identities that are not live move to
    /// reserved negative ids, which SQLite never hands out; so a table is mapped still when a
    /// store row references one of them at a positive id (``storeReferencesIdentityNotLive(of:storeTable:among:store:in:)``).
    ///
    /// - Returns: the tables taken as they are: the id of each here, and of the same table in the
    ///   store.
    static func mapStoreRows(of tables: [SyncedTable], store: String, in db: Database) throws -> [Int64: Int64] {
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.rollingsync_store_ids;
            CREATE TEMP TABLE rollingsync_store_ids (
                table_id INTEGER NOT NULL, store_id INTEGER NOT NULL, global TEXT NOT NULL, local_id INTEGER, live INTEGER NOT NULL,
                kept INTEGER NOT NULL, PRIMARY KEY (table_id, store_id)) WITHOUT ROWID;
            """)
        var takenAsIs: [Int64: Int64] = [:]
        guard try db.tableExists("rollingsync_identities", in: store) else { return takenAsIs }
        for table in tables where table.keyIsLocal {
            guard let storeTable = try Int64.fetchOne(
                db, sql: "SELECT id FROM \(store).rollingsync_tables WHERE name = ? COLLATE NOCASE", arguments: [table.name]
            ) else { continue }
            if try Bool.fetchOne(db, sql: """
                SELECT NOT EXISTS (SELECT 1 FROM main.\(table.name.sqlIdentifier))
                   AND NOT EXISTS (SELECT 1 FROM main.rollingsync_identities WHERE rollingsync_table = ?1)
                   AND NOT EXISTS (SELECT 1 FROM main.rollingsync_changes WHERE table_id = ?1)
                """, arguments: [table.id]) == true,
                try !storeReferencesIdentityNotLive(of: table, storeTable: storeTable, among: tables, store: store, in: db)
            {
                takenAsIs[table.id] = storeTable
                continue
            }
            let key = table.keyColumns[0].sqlIdentifier
            let sequence = try db.tableExists("sqlite_sequence")
                ? "coalesce((SELECT seq FROM main.sqlite_sequence WHERE name = \(table.name.sqlLiteral)), 0)" : "0"
            try db.execute(sql: """
                INSERT INTO temp.rollingsync_store_ids (table_id, store_id, global, local_id, live, kept)
                    SELECT \(table.id), s.rollingsync_local, s.rollingsync_global,
                        coalesce(m.rollingsync_local, CASE WHEN s.rollingsync_status = \(live)
                            AND NOT EXISTS (SELECT 1 FROM main.rollingsync_identities WHERE rollingsync_table = \(table.id) AND rollingsync_local = s.rollingsync_local)
                            AND NOT EXISTS (SELECT 1 FROM main.\(table.name.sqlIdentifier) WHERE \(key) = s.rollingsync_local)
                            THEN s.rollingsync_local END),
                        s.rollingsync_status = \(live),
                        coalesce(m.rollingsync_status = \(live) AND s.rollingsync_status = \(live), 0)
                    FROM \(store).rollingsync_identities AS s
                    LEFT JOIN main.rollingsync_identities AS m ON m.rollingsync_table = \(table.id) AND m.rollingsync_global = s.rollingsync_global
                    WHERE s.rollingsync_table = \(storeTable);
                UPDATE temp.rollingsync_store_ids SET local_id = fresh.id FROM (
                    SELECT store_id, row_number() OVER (ORDER BY store_id) + max(
                        coalesce((SELECT max(rollingsync_local) FROM main.rollingsync_identities WHERE rollingsync_table = \(table.id)), 0),
                        coalesce((SELECT max(\(key)) FROM main.\(table.name.sqlIdentifier)), 0),
                        coalesce((SELECT max(local_id) FROM temp.rollingsync_store_ids WHERE table_id = \(table.id)), 0),
                        \(sequence)) AS id
                    FROM temp.rollingsync_store_ids WHERE table_id = \(table.id) AND local_id IS NULL AND live
                ) AS fresh
                WHERE rollingsync_store_ids.table_id = \(table.id) AND rollingsync_store_ids.store_id = fresh.store_id;
                UPDATE temp.rollingsync_store_ids SET local_id = reserved.id FROM (
                    SELECT store_id, min(0,
                        coalesce((SELECT min(rollingsync_local) FROM main.rollingsync_identities WHERE rollingsync_table = \(table.id)), 0),
                        coalesce((SELECT min(\(key)) FROM main.\(table.name.sqlIdentifier)), 0)
                    ) - row_number() OVER (ORDER BY store_id) AS id
                    FROM temp.rollingsync_store_ids WHERE table_id = \(table.id) AND local_id IS NULL
                ) AS reserved
                WHERE rollingsync_store_ids.table_id = \(table.id) AND rollingsync_store_ids.store_id = reserved.store_id;
                INSERT INTO main.rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global, rollingsync_status)
                    SELECT table_id, local_id, global, \(reserved) FROM temp.rollingsync_store_ids AS r
                    WHERE table_id = \(table.id) AND NOT live
                      AND NOT EXISTS (SELECT 1 FROM main.rollingsync_identities WHERE rollingsync_table = \(table.id) AND rollingsync_global = r.global);
                """)
        }
        return takenAsIs
    }

    /// Whether a row of `store` references, in a column of one of `tables` that holds ids of
    /// `table` (`storeTable` in the store), an identity that is not live there at a positive id:
    /// a row not arrived yet, deleted without a tombstone reaching the reference (a re-base marks
    /// deleted the identities the store does not hold live), or absent. Taken as it is, such an
    /// identity would keep its id, which this database's next row or another client's row could
    /// then take, and the reference would follow that row instead.
    private static func storeReferencesIdentityNotLive(
        of table: SyncedTable, storeTable: Int64, among tables: [SyncedTable], store: String, in db: Database
    ) throws -> Bool {
        for referencing in tables {
            let storeColumns = Set(try String.fetchAll(
                db, sql: "SELECT lower(name) FROM pragma_table_info(?, ?)", arguments: [referencing.name, store]
            ))
            for (column, target) in referencing.localReferences where target == table.id && storeColumns.contains(column.lowercased()) {
                if try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM \(store).\(referencing.name.sqlIdentifier) WHERE \(column.sqlIdentifier) IN (
                        SELECT rollingsync_local FROM \(store).rollingsync_identities
                        WHERE rollingsync_table = ? AND rollingsync_status <> \(live) AND rollingsync_local > 0))
                    """, arguments: [storeTable]) == true {
                    return true
                }
            }
        }
        return false
    }

    /// The SQL expression, on a store row aliased `s`, of the local value of `column` of `table`
    /// as ``mapStoreRows(of:store:in:)`` decided it: a local key's local id, a reference's
    /// referenced row's local id (as it is when the store's row names no row); the column itself
    /// otherwise.
    static func storeValue(of column: String, in table: SyncedTable) -> String {
        let name = "s.\(column.sqlIdentifier)"
        guard let identities = identityTable(of: column, in: table) else { return name }
        return "coalesce((SELECT local_id FROM temp.rollingsync_store_ids WHERE table_id = \(identities) AND store_id = \(name)), \(name))"
    }

    /// The id of the synced table whose identities the values of `column` of `table` stand for:
    /// the table's own for its local key, the referenced table's for a reference to a local key;
    /// `nil` for any other column.
    private static func identityTable(of column: String, in table: SyncedTable) -> Int64? {
        table.keyIsLocal && table.keyColumns == [column] ? table.id : table.localReferences[column]
    }

    /// Whether ``storeValue(of:in:)`` is the column itself for each of `columns` of every row of
    /// `table` in `store`: no value in them names a store identity whose local id here is another,
    /// as on a client that had none of these rows. The store's rows can then be copied as they
    /// are, page by page. Only the ids the rows hold count: a store's identities of deleted rows
    /// are reserved here under other ids, and every store keeps some.
    static func storeValuesStay(of columns: [String], in table: SyncedTable, store: String, in db: Database) throws -> Bool {
        try columns.allSatisfy { column in
            guard let identities = identityTable(of: column, in: table) else { return true }
            return try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM \(store).\(table.name.sqlIdentifier) WHERE \(column.sqlIdentifier) IN (
                    SELECT store_id FROM temp.rollingsync_store_ids WHERE table_id = ? AND local_id IS NOT store_id))
                """, arguments: [identities]) == false
        }
    }

    /// Records the identities of the store's rows of `tables` (whose rows here were just deleted,
    /// see ``retireRows(of:filter:in:)``) at the local ids ``mapStoreRows(of:store:in:)`` decided,
    /// live, before those rows are written, in place of any identity here at the same local id,
    /// which is also where an identity here of the same row is (it keeps its local id). Identities
    /// `kept` are live already. Where a table has no identity here, there is nothing to delete,
    /// and the adopted ids are not listed for it (0.2 s for 1M).
    ///
    /// A table `takenAsIs` (the store's id of each table, see ``mapStoreRows(of:store:in:)``)
    /// takes all its store identities, in their states in the store. When every identity of the
    /// store is so taken by one of `tables`, under the same table id, and the table has the same
    /// columns in both, they are copied in one statement, page by page where this database has no
    /// identity at all (SQLite's transfer optimization, which checks that and falls back to
    /// inserting row by row): 1M identities inserted row by row took 1.2 s.
    static func adoptStoreIdentities(of tables: [SyncedTable], takenAsIs: [Int64: Int64], store: String, in db: Database) throws {
        let ids = Set(tables.map(\.id))
        let asIs = takenAsIs.filter { ids.contains($0.key) }
        let copiedWhole = try !asIs.isEmpty
            && LocalStoreSchema.hasSameColumns("rollingsync_identities", in: "main", as: store, db: db)
            && LocalStoreSchema.tableIDs(in: "\(store).rollingsync_identities", column: "rollingsync_table", db: db).allSatisfy { asIs[$0] == $0 }
        if copiedWhole {
            try db.execute(sql: "INSERT INTO main.rollingsync_identities SELECT * FROM \(store).rollingsync_identities")
        }
        for table in tables where table.keyIsLocal {
            if let storeTable = asIs[table.id] {
                guard !copiedWhole else { continue }
                try db.execute(sql: """
                    INSERT INTO main.rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global, rollingsync_status)
                        SELECT \(table.id), rollingsync_local, rollingsync_global, rollingsync_status
                        FROM \(store).rollingsync_identities WHERE rollingsync_table = \(storeTable)
                    """)
                continue
            }
            let adopted = "FROM temp.rollingsync_store_ids WHERE table_id = \(table.id) AND live AND NOT kept"
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM main.rollingsync_identities WHERE rollingsync_table = ?)", arguments: [table.id]) == true {
                try db.execute(sql: "DELETE FROM main.rollingsync_identities WHERE rollingsync_table = \(table.id) AND rollingsync_local IN (SELECT local_id \(adopted))")
            }
            try db.execute(sql: """
                INSERT INTO main.rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global, rollingsync_status)
                    SELECT table_id, local_id, global, \(live) \(adopted)
                """)
        }
    }

    /// Forgets the identities of a table removed from synchronization (and drops its rowid keeper).
    static func forget(tableID: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM rollingsync_identities WHERE rollingsync_table = ?", arguments: [tableID])
        try db.execute(sql: "DROP INDEX IF EXISTS \(rowidKeeper(tableID: tableID).sqlIdentifier)")
    }

    /// The name of the index that keeps the rowids of a table without a key (see ``keepRowids(of:in:)``).
    private static func rowidKeeper(tableID: Int64) -> String { "rollingsync_\(tableID)_keep_rowids" }

    /// Makes `VACUUM` keep the rowids of a table without a declared key, which name its rows: SQLite
    /// renumbers such a table's rows when it has no index (its copy then takes new rowids), so it
    /// gets an index that holds no entry (`WHERE 0`: nothing to store or maintain). Tables with a
    /// key are left alone.
    static func keepRowids(of table: SyncedTable, in db: Database) throws {
        guard table.keyIsRowid, let column = table.columns.first else { return }
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS \(rowidKeeper(tableID: table.id).sqlIdentifier)
            ON \(table.name.sqlIdentifier) (\(column.sqlIdentifier)) WHERE 0
            """)
    }

    /// The id a global identity prefers: the local id its row had where it was created.
    static func preferredID(of global: String) -> Int64? {
        Int64(global[..<(global.firstIndex(of: "@") ?? global.endIndex)])
    }

    // MARK: Applying

    /// The local value that stands for `value` in a column holding the local ids of `table`: a
    /// global identity (TEXT) becomes the local id of its row, reserved under a negative id when
    /// the row is not known here yet (unless not `reserving`: then it stays as it is); any other
    /// value (NULL, an id that named no row where it was written) is kept as it is.
    static func localValue(of value: DatabaseValue, in table: SyncedTable, db: Database, reserving: Bool = true) throws -> DatabaseValue {
        guard case .string(let global) = value.storage else { return value }
        if let local = try db.cachedStatement(sql: "SELECT rollingsync_local FROM rollingsync_identities WHERE rollingsync_table = ? AND rollingsync_global = ?")
            .fetchFirstRow(binding: [table.id.databaseValue, value])?.first
        {
            return local
        }
        guard reserving else { return value }
        let placeholder = try nextReservedID(in: table, db: db)
        try db.cachedStatement(sql: "INSERT INTO rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global, rollingsync_status) VALUES (?, ?, ?, ?)")
            .execute(arguments: [table.id, placeholder, global, reserved])
        return placeholder.databaseValue
    }

    /// The next negative id to reserve in `table`: one below the lowest id in the table or its
    /// identities, and below 0.
    private static func nextReservedID(in table: SyncedTable, db: Database) throws -> Int64 {
        let lowest = min(try lowest(in: table, db: db), 0)
        guard lowest > Int64.min else {
            throw DatabaseError(resultCode: .SQLITE_FULL, message: "\(table.name) has no free negative id left to reserve")
        }
        return lowest - 1
    }

    /// After a re-base, holds under reserved negative ids the identities of `table` that the
    /// re-base marked deleted though nobody deleted their rows (no tombstone: the store holds them
    /// for references only, their rows not arrived where it was written) and that a row still
    /// references through one of `references` (child table, column). SQLite may hand such an id
    /// to the app's next row, and another client's row may claim it; the references would then
    /// name that row. Held as a reference to a row not arrived yet is (see the type's rules), the
    /// row takes an id again when its set is applied, and the references follow it.
    /// `moveReferences(from, to)` rewrites the references before each identity moves.
    ///
    /// A deleted row's references are settled by the reference rule instead, and an absent row
    /// (this client's own) keeps its id, which the app was given: its set is applied again at the
    /// next sync. Until then the app's next row may still take that id where it is the table's
    /// largest (Docs/Conflicts.md).
    static func holdReferencedRowsNotHere(
        of table: SyncedTable, referencedBy references: [(table: String, column: String)], in db: Database,
        moveReferences: (Int64, Int64) throws -> Void
    ) throws {
        guard table.keyIsLocal else { return }
        var held: Set<Int64> = []
        for (child, column) in references {
            held.formUnion(try Int64.fetchAll(db, sql: """
                SELECT DISTINCT \(column.sqlIdentifier) FROM main.\(child.sqlIdentifier)
                WHERE \(column.sqlIdentifier) > 0 AND \(column.sqlIdentifier) IN (
                    SELECT rollingsync_local FROM rollingsync_identities AS i WHERE rollingsync_table = ?1 AND rollingsync_status = \(deleted)
                        AND NOT EXISTS (SELECT 1 FROM rollingsync_tombstones WHERE table_id = ?1 AND row_key = i.rollingsync_global))
                """, arguments: [table.id]))
        }
        for id in held.sorted() {
            let placeholder = try nextReservedID(in: table, db: db)
            try moveReferences(id, placeholder)
            try db.execute(
                sql: "UPDATE rollingsync_identities SET rollingsync_local = ?, rollingsync_status = \(reserved) WHERE rollingsync_table = ? AND rollingsync_local = ?",
                arguments: [placeholder, table.id, id]
            )
        }
    }

    /// Where a row arriving from another client lands.
    struct Claim {
        /// The row's local id here.
        var localID: Int64
        /// Whether the row exists here already (its identity is live): merge into it.
        var exists: Bool
    }

    /// The statements of ``claim(_:in:using:db:moveReferences:)`` for one table, prepared once
    /// per apply rather than built for every row.
    struct ClaimStatements {
        /// What is known of a row (`?2`), whether its row is present, and whether its preferred
        /// id (`?3`) is free: columns local, status, present, preferredIsFree.
        fileprivate let probe: Statement
        fileprivate let forget: Statement
        fileprivate let record: Statement

        init(table: SyncedTable, db: Database) throws {
            let key = table.keyColumns[0].sqlIdentifier
            probe = try db.makeStatement(sql: """
                SELECT i.rollingsync_local, i.rollingsync_status,
                    EXISTS (SELECT 1 FROM main.\(table.name.sqlIdentifier) WHERE \(key) = i.rollingsync_local),
                    \(isFreeCondition(id: "?3", global: "?2", table: table))
                FROM (SELECT 1) LEFT JOIN rollingsync_identities AS i ON i.rollingsync_table = ?1 AND i.rollingsync_global = ?2
                """)
            forget = try db.makeStatement(sql: "DELETE FROM rollingsync_identities WHERE rollingsync_table = ? AND rollingsync_global = ?")
            // A deleted identity may hold the id: the new one replaces it.
            record = try db.makeStatement(sql: """
                INSERT INTO rollingsync_identities (rollingsync_table, rollingsync_local, rollingsync_global, rollingsync_status) VALUES (?, ?, ?, \(live))
                ON CONFLICT (rollingsync_table, rollingsync_local) DO UPDATE SET rollingsync_global = excluded.rollingsync_global, rollingsync_status = \(live)
                """)
        }
    }

    /// Finds or makes the local id of the row `global` of `table` (see the type's rules) and
    /// records it live, before the row is written (so the app-trigger guard and the key lookups
    /// find it); ``release(_:in:db:)`` undoes that when the write does not happen. When the
    /// identity was reserved for references that arrived first, `moveReferences(reserved, localID)`
    /// runs before the identity moves, so it can rewrite them while they still name the row.
    static func claim(
        _ global: String, in table: SyncedTable, using statements: ClaimStatements, db: Database,
        moveReferences: (Int64, Int64) throws -> Void
    ) throws -> Claim {
        let preferred = preferredID(of: global)
        // One statement for the common case: what is known of the row, and whether its preferred id is free.
        let probe = try statements.probe.fetchFirstRow(binding: [table.id.databaseValue, global.databaseValue, preferred.databaseValue]) ?? []
        let known = probe.count == 4 ? Int.fromDatabaseValue(probe[1]).map { (local: Int64.fromDatabaseValue(probe[0]) ?? 0, status: $0) } : nil
        // A live identity whose row is gone (removed by a `REPLACE` that fired no trigger) is a deleted one.
        if let known, known.status == live, Bool.fromDatabaseValue(probe[2]) == true {
            return Claim(localID: known.local, exists: true)
        }
        let former: Int64? = known.flatMap { $0.status == reserved ? nil : $0.local }
        let preferredIsFree = preferred != nil && probe.count == 4 && Bool.fromDatabaseValue(probe[3]) == true
        let formerIsFree = try former.map { $0 == preferred ? preferredIsFree : try isFree($0, for: global, in: table, db: db) } ?? false
        let localID: Int64
        if let former, formerIsFree {
            localID = former
        } else if let preferred, preferredIsFree {
            localID = preferred
        } else {
            localID = try nextFreeID(in: table, db: db)
        }
        if let known, known.status == reserved {
            try moveReferences(known.local, localID)
        }
        if known != nil {
            try statements.forget.execute(binding: [table.id.databaseValue, global.databaseValue])
        }
        try statements.record.execute(binding: [table.id.databaseValue, localID.databaseValue, global.databaseValue])
        return Claim(localID: localID, exists: false)
    }

    /// Marks a claimed identity deleted: its row was not written (it lost a uniqueness collision or
    /// a constraint refused it), as if it had been deleted.
    static func release(_ global: String, in table: SyncedTable, db: Database) throws {
        try db.cachedStatement(sql: "UPDATE rollingsync_identities SET rollingsync_status = ? WHERE rollingsync_table = ? AND rollingsync_global = ?")
            .execute(arguments: [deleted, table.id, global])
    }

    /// The SQL condition that the id `id` can take the row `global` (SQL expressions): no row has
    /// it, and no identity but a deleted one or the row's own.
    private static func isFreeCondition(id: String, global: String, table: SyncedTable) -> String {
        """
        (NOT EXISTS (SELECT 1 FROM main.\(table.name.sqlIdentifier) WHERE \(table.keyColumns[0].sqlIdentifier) = \(id))
            AND NOT EXISTS (SELECT 1 FROM rollingsync_identities WHERE rollingsync_table = \(table.id) AND rollingsync_local = \(id)
                AND rollingsync_status <> \(deleted) AND rollingsync_global <> \(global)))
        """
    }

    /// Whether `id` can take the row `global` (see ``isFreeCondition(id:global:table:)``).
    private static func isFree(_ id: Int64, for global: String, in table: SyncedTable, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT \(isFreeCondition(id: "?1", global: "?2", table: table))"), arguments: [id, global]
        ) ?? false
    }

    /// One more than the largest id in the table, in its identities and in its `sqlite_sequence`
    /// entry.
    private static func nextFreeID(in table: SyncedTable, db: Database) throws -> Int64 {
        let key = table.keyColumns[0].sqlIdentifier
        let name = table.name.sqlIdentifier
        let sequence = try db.tableExists("sqlite_sequence")
            ? Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = ?"), arguments: [table.name]) ?? 0
            : 0
        let highest = try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT max(coalesce((SELECT max(\(key)) FROM main.\(name)), 0),
                           coalesce((SELECT max(rollingsync_local) FROM rollingsync_identities WHERE rollingsync_table = ?), 0))
                """),
            arguments: [table.id]
        ) ?? 0
        guard max(highest, sequence) < Int64.max else {
            throw DatabaseError(resultCode: .SQLITE_FULL, message: "\(table.name) has no free id left for a row of another client")
        }
        return max(highest, sequence) + 1
    }

    /// The lowest local id in the table or its identities.
    private static func lowest(in table: SyncedTable, db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT min(coalesce((SELECT min(\(table.keyColumns[0].sqlIdentifier)) FROM main.\(table.name.sqlIdentifier)), 0),
                           coalesce((SELECT min(rollingsync_local) FROM rollingsync_identities WHERE rollingsync_table = ?), 0))
                """),
            arguments: [table.id]
        ) ?? 0
    }
}
