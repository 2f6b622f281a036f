import GRDB

/// Merges the unpushed local changes into a whole store just installed in place of the synced
/// tables (see ``LocalStore/installWholeStore(at:resolver:inSameTransaction:)``), deciding each
/// one against the store exactly as an incoming change would be decided against it, with the
/// local change's **original** clock:
/// - a **pending deletion** stays a pending deletion (its log entry is kept and pushed by the next
///   sync); the store's row, if any, is deleted;
/// - a row the store does **not have** is re-created with its local values, unless the store
///   records it as deleted (a tombstone): then the deletion wins, the local edits are dropped and
///   reported (``WholeStoreInstallation/updatesOfDeletedRows``);
/// - for a row **both have**, each locally edited column is compared with the store's cell clock:
///   the later write (clock, then database id) wins, and a different value is a ``Conflict`` decided
///   by the resolver, as in ``ChangeSetApplier``. A local edit that loses is superseded (its log
///   entry dropped); a decision against the later write is re-published with a new clock.
/// - a local row that **collides** with a store row on a unique constraint follows the uniqueness
///   rule (the smaller key stays; the other is removed, saved and its deletion pushed).
/// - in the install that completes a **first join** (``LocalSyncState/Registration/joinedAt``),
///   what was logged here up to the join (the rows this database held before it, and any change
///   made before it) yields to the document wherever the store has the key, as a row or as a
///   deletion, in a table the store syncs: those entries are dropped, and a local row whose values
///   differ is saved (``ApplyReport/Warning/rowsHeldBeforeJoiningReplaced(table:keys:)``); its
///   values in columns the store lacks are published. Changes made since the join are merged as
///   above.
///
/// All writes here run with the capture triggers suppressed, so the kept log entries keep their
/// clocks; re-published cells get new log entries. The one exception is the removal of a row that
/// loses a uniqueness collision: a local deletion, captured as the app's own writes are. References
/// are settled afterwards by the caller.
struct WholeStoreMerge {
    private let db: Database
    private let tables: [Int64: SyncedTable]
    private let localDatabaseID: String
    private let resolver: ConflictResolver
    private let uniqueConstraints: UniqueConstraints
    /// Skips the app triggers' writes to synced tables (see ``AppTriggerGuard``), if installed.
    private let triggerGuard: AppTriggerGuard?
    /// The schema the store is attached as.
    private let store: String
    /// The clock of the first join this install completes, if it does.
    private let joinedAt: HLCTimestamp?
    /// For a first join: the columns (lowercased) of each synced table the store holds, `nil` for
    /// a table it does not sync; read once per table.
    private var storeColumns: [Int64: Set<String>?] = [:]
    /// The keys of rows held before the join that took the document's version, by table.
    private var replacedJoiningRows: [Int64: [DatabaseValue]] = [:]
    /// The rows whose entries logged up to the join are dropped once the merge is done.
    private static let yieldedRows = "temp.rollingsync_yielded_rows"
    /// What the merge did.
    private(set) var installation = WholeStoreInstallation(appliedSetCount: 0, rebasedChanges: 0, updatesOfDeletedRows: [])

    /// - Parameters:
    ///   - store: the schema the installed store is attached as.
    ///   - joinedAt: the clock of the first join the install completes (``LocalSyncState``).
    init(
        db: Database, tables: [SyncedTable], localDatabaseID: String, resolver: ConflictResolver, triggerGuard: AppTriggerGuard?,
        store: String, joinedAt: HLCTimestamp?
    ) {
        self.db = db
        self.triggerGuard = triggerGuard
        self.store = store
        self.joinedAt = joinedAt
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.id, $0) })
        self.localDatabaseID = localDatabaseID
        self.resolver = resolver
        uniqueConstraints = UniqueConstraints(db: db)
    }

    private static func localCopy(of table: SyncedTable) -> String {
        "temp.\("rollingsync_local_\(table.id)".sqlIdentifier)"
    }

    /// Copies the local rows that have unpushed changes aside, before the store replaces them. A
    /// table without any is not read (the `EXISTS` is evaluated once, before the scan): where rows
    /// are named by global identities, finding a row's name is a lookup, 0.35 s for 1M rows.
    func keepLocalRows() throws {
        for table in tables.values {
            let copy = Self.localCopy(of: table)
            try db.execute(sql: """
                DROP TABLE IF EXISTS \(copy);
                CREATE TEMP TABLE \("rollingsync_local_\(table.id)".sqlIdentifier) AS
                    SELECT \(table.keyIsRowid ? "\(table.keyColumns[0].sqlIdentifier) AS \(table.keyColumns[0].sqlIdentifier), " : "")*
                    FROM main.\(table.name.sqlIdentifier)
                    WHERE EXISTS (SELECT 1 FROM rollingsync_changes WHERE table_id = \(table.id))
                      AND \(table.key.value()) IN (SELECT row_key FROM rollingsync_changes WHERE table_id = \(table.id));
                CREATE INDEX temp.\("rollingsync_local_\(table.id)_key".sqlIdentifier)
                    ON \("rollingsync_local_\(table.id)".sqlIdentifier) (\(table.key.columnList));
                """)
        }
    }

    /// Merges every row with unpushed changes into the installed store, then drops the copies.
    mutating func mergePendingChanges() throws {
        if joinedAt != nil {
            try db.execute(sql: "DROP TABLE IF EXISTS \(Self.yieldedRows); CREATE TABLE \(Self.yieldedRows) (table_id INTEGER, row_key)")
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT table_id, row_key, op, coalesce(column_name, '') AS column_name, max(clock) AS clock, min(republished) AS republished
            FROM rollingsync_changes GROUP BY table_id, row_key, op, coalesce(column_name, '')
            ORDER BY table_id, row_key
            """)
        var index = 0
        while index < rows.count {
            let tableID: Int64 = rows[index]["table_id"]
            let key: DatabaseValue = rows[index]["row_key"]
            var pending = PendingRow()
            while index < rows.count, rows[index]["table_id"] == tableID, rows[index]["row_key"] as DatabaseValue == key {
                pending.add(
                    op: rows[index]["op"], column: rows[index]["column_name"],
                    clock: HLCTimestamp(rawValue: UInt64(bitPattern: rows[index]["clock"])), republished: rows[index]["republished"]
                )
                index += 1
            }
            guard let table = tables[tableID] else { continue }
            try merge(key: key, pending: pending, table: table)
        }
        for table in tables.values {
            try db.execute(sql: "DROP TABLE IF EXISTS \(Self.localCopy(of: table))")
        }
        if let joinedAt {
            try ChangeLog.dropChanges(upTo: joinedAt, ofRowsListedIn: Self.yieldedRows, in: db)
            try db.execute(sql: "DROP TABLE \(Self.yieldedRows)")
        }
        for (tableID, keys) in replacedJoiningRows.sorted(by: { $0.key < $1.key }) {
            guard let table = tables[tableID] else { continue }
            installation.warnings.append(.rowsHeldBeforeJoiningReplaced(table: table.name, keys: keys))
        }
    }

    private mutating func merge(key: DatabaseValue, pending: PendingRow, table: SyncedTable) throws {
        let name = table.name.sqlIdentifier
        let matchesKey = table.key.matches()
        let keyValues = try table.key.components(of: key)
        let local = try Row.fetchOne(db, sql: "SELECT * FROM \(Self.localCopy(of: table)) WHERE \(matchesKey)", arguments: StatementArguments(values: keyValues))
        let stored = try Row.fetchOne(db, sql: "SELECT * FROM main.\(name) WHERE \(matchesKey)", arguments: StatementArguments(values: keyValues))
        var pending = pending
        if let joinedAt {
            pending = try yieldToDocument(key: key, pending: pending, local: local, stored: stored, joinedAt: joinedAt, table: table)
            if pending.isEmpty { return }
        }
        guard let local else {
            // Deleted here and not pushed: the deletion stays pending and wins over the store's row,
            // unless the store's row was created after it (then, as when applied, the row stays
            // and the deletion is moot).
            if stored != nil, let deleted = pending.deleteClock,
                let created = try cellClock(table: table, key: key, column: LocalStoreSchema.rowClockColumn)?.clock,
                !RowMerge.deletionWins(tombstone: deleted, over: .insert, at: created)
            {
                try ChangeLog.dropChanges(key: key, tableID: table.id, in: db)
                installation.rebasedChanges += 1
                return
            }
            if stored != nil {
                try triggerGuard.permit(table, key: key)
                try db.execute(sql: "DELETE FROM main.\(name) WHERE \(matchesKey)", arguments: StatementArguments(values: keyValues))
            }
            installation.rebasedChanges += 1
            return
        }
        guard let stored else {
            // The store deleted the row: the deletion wins over local edits, and over a local
            // creation unless that creation is newer (then it re-creates the key, as when applied).
            let tombstone = try Int64.fetchOne(
                db, sql: "SELECT clock FROM rollingsync_tombstones WHERE table_id = ? AND row_key = ?", arguments: [table.id, key]
            ).map { HLCTimestamp(rawValue: UInt64(bitPattern: $0)) }
            let created = pending.creationClock(columns: table.columns)
            if let tombstone, RowMerge.deletionWins(tombstone: tombstone, over: created == nil ? .update : .insert, at: created ?? tombstone) {
                try ChangeLog.dropChanges(key: key, tableID: table.id, in: db)
                if pending.hasLocalWrites {
                    installation.updatesOfDeletedRows.append(.init(table: table.name, key: "\(key)"))
                }
            } else {
                try recreate(local, key: key, table: table)
            }
            return
        }
        let created = try cellClock(table: table, key: key, column: LocalStoreSchema.rowClockColumn)
        if let local = pending.creationClock(columns: table.columns), let created,
            LastWriterWins.isNewer(created.clock, created.databaseID, than: local, localDatabaseID)
        {
            // The store's creation of the key is newer than the unpushed local one, which lost
            // whole (as when applied): only edits made since stay pending.
            try ChangeLog.dropCreation(key: key, tableID: table.id, in: db)
            pending.insertClock = nil
            pending.deleteClock = nil
        }
        var assignments: [(column: String, value: DatabaseValue)] = []
        for column in table.columns {
            guard let localClock = pending.clock(of: column) else { continue }
            let localValue: DatabaseValue = local[column]
            let storeValue: DatabaseValue = stored[column]
            guard let cell = RowMerge.currentWrite(cell: try cellClock(table: table, key: key, column: column), row: created) else {
                // The store recorded no write of the cell: its value is older than this edit.
                if localValue != storeValue { assignments.append((column, localValue)) }
                continue
            }
            // A write published before and logged again merges as published writes do.
            let republished = pending.isRepublished(column)
            let verdict = try RowMerge.mergeCell(
                local: CellWrite(value: localValue, clock: localClock, databaseID: localDatabaseID),
                remote: CellWrite(value: storeValue, clock: cell.clock, databaseID: cell.databaseID),
                held: .remote, table: table.name, key: key, column: column, resolver: republished ? .lastWriterWins : resolver
            )
            if !republished, let reported = verdict.reported { installation.conflicts.append(reported) }
            if verdict.dropsPendingEdit { try ChangeLog.dropEdit(of: column, key: key, tableID: table.id, in: db) }
            if verdict.republishes { try ChangeLog.republish(column, key: key, tableID: table.id, in: db) }
            if let value = verdict.write { assignments.append((column, value)) }
        }
        if !assignments.isEmpty {
            let set = assignments.map { "\($0.column.sqlIdentifier) = ?" }.joined(separator: ", ")
            try write(
                "UPDATE main.\(name) SET \(set) WHERE \(matchesKey)",
                assignments.map(\.value) + keyValues,
                row: Dictionary(assignments.map { ($0.column, $0.value) }, uniquingKeysWith: { _, last in last }),
                key: key, table: table
            )
        }
        installation.rebasedChanges += 1
    }

    /// In the install that completes a first join, yields what was logged here up to the join
    /// wherever the store has the row's key (as a row, or as a tombstone) in a table it syncs:
    /// those entries are dropped when the merge is done, and this database's row is saved where
    /// a value it held before the join differs from the store's (or the store deleted the row).
    /// A column the store lacks keeps this database's value, which is logged again as an edit.
    /// A key the store lacks keeps its entries.
    /// - Returns: the row's pending changes made since the join.
    private mutating func yieldToDocument(
        key: DatabaseValue, pending: PendingRow, local: Row?, stored: Row?, joinedAt: HLCTimestamp, table: SyncedTable
    ) throws -> PendingRow {
        guard let documentColumns = try storeColumns(of: table) else { return pending }
        if stored == nil, try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_tombstones WHERE table_id = ? AND row_key = ?)", arguments: [table.id, key]
        ) != true {
            return pending
        }
        try db.cachedStatement(sql: "INSERT INTO \(Self.yieldedRows) VALUES (?, ?)").execute(arguments: [table.id, key])
        var since = PendingRow()
        since.insertClock = pending.insertClock.flatMap { $0 > joinedAt ? $0 : nil }
        since.deleteClock = pending.deleteClock.flatMap { $0 > joinedAt ? $0 : nil }
        since.columnClocks = pending.columnClocks.filter { $0.value > joinedAt }
        since.localWrites = pending.localWrites
        // The values held before the join: those no write since has replaced (none, for a row
        // created again since).
        let heldColumns = since.insertClock == nil ? table.columns.filter { since.columnClocks[$0] == nil } : []
        if local != nil, stored != nil {
            for column in heldColumns where !documentColumns.contains(column.lowercased()) {
                try ChangeLog.republish(column, key: key, tableID: table.id, in: db)
            }
        }
        let compared = heldColumns.filter { documentColumns.contains($0.lowercased()) }
        let differs = stored.map { stored in compared.contains { (local?[$0] as DatabaseValue?) != (stored[$0] as DatabaseValue) } }
            ?? (since.insertClock == nil)
        if let local, differs {
            try RemovedRow.save(
                table: table.name, key: key, row: local,
                reason: "this database held it before joining the document, whose version was kept", in: db
            )
            replacedJoiningRows[table.id, default: []].append(key)
        }
        return since
    }

    /// The columns (lowercased) the store has for `table`, `nil` if the store does not sync it.
    private mutating func storeColumns(of table: SyncedTable) throws -> Set<String>? {
        if let known = storeColumns[table.id] { return known }
        let synced = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \(store).rollingsync_tables WHERE name = ? COLLATE NOCASE)", arguments: [table.name]
        ) == true
        let columns = synced
            ? Set(try String.fetchAll(
                db, sql: "SELECT lower(name) FROM pragma_table_xinfo(?, ?) WHERE hidden = 0", arguments: [table.name, store]
            ))
            : nil
        storeColumns[table.id] = .some(columns)
        return columns
    }

    /// The store's clock and client of a cell's last write, if it recorded one.
    private func cellClock(table: SyncedTable, key: DatabaseValue, column: String) throws -> (clock: HLCTimestamp, databaseID: String)? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT c.clock, w.database_id FROM rollingsync_cell_clocks AS c JOIN rollingsync_writers AS w ON w.number = c.writer
                WHERE c.table_id = ? AND c.row_key = ? AND c.column_name = ?
                """,
            arguments: [table.id, key, column]
        ).map { (HLCTimestamp(rawValue: UInt64(bitPattern: $0["clock"])), $0["database_id"]) }
    }

    /// Inserts a local row the store does not have, with all its local values.
    private mutating func recreate(_ local: Row, key: DatabaseValue, table: SyncedTable) throws {
        let columns = table.keyColumns + table.columns
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let values = columns.map { local[$0] as DatabaseValue? ?? .null }
        let written = try write(
            "INSERT INTO main.\(table.name.sqlIdentifier) (\(columns.map(\.sqlIdentifier).joined(separator: ", "))) VALUES (\(placeholders))",
            values,
            row: Dictionary(zip(columns, values).map { ($0, $1) }, uniquingKeysWith: { first, _ in first }),
            key: key, table: table
        )
        if written { installation.rebasedChanges += 1 }
    }

    /// Runs a write of local values; on a unique collision follows the uniqueness rule, on another
    /// constraint failure keeps the store's row (the local values are saved and reported).
    /// - Returns: whether the local values were written.
    @discardableResult
    private mutating func write(_ sql: String, _ arguments: [DatabaseValue], row: [String: DatabaseValue], key: DatabaseValue, table: SyncedTable) throws -> Bool {
        let outcome = try uniqueConstraints.write(
            key: key, table: table,
            attempt: {
                try triggerGuard.permit(table, key: key)
                try db.execute(sql: sql, arguments: StatementArguments(values: arguments))
            },
            collisionRow: { row },
            removeLoser: { loser in
                try removeAsLocalDeletion(loser, table: table, reason: "it collided with row \(key) on a unique constraint")
                installation.warnings.append(.rowRemovedByUniqueConstraint(table: table.name, key: loser, keptKey: key))
            }
        )
        switch outcome {
        case .written:
            return true
        case .lost(let winner, _):
            try removeAsLocalDeletion(key, table: table, reason: "it collided with row \(winner) on a unique constraint")
            installation.warnings.append(.rowRemovedByUniqueConstraint(table: table.name, key: key, keptKey: winner))
            return false
        case .rejected(let reason, let row):
            try RemovedRow.save(table: table.name, key: key, row: Row(row), reason: "refused by a constraint: \(reason)", in: db)
            try ChangeLog.dropChanges(key: key, tableID: table.id, in: db)
            installation.warnings.append(.changeRejectedByConstraint(table: table.name, key: key, reason: reason))
            return false
        }
    }

    /// Removes a row (present in the store, or a local row not written yet) as a local deletion
    /// pushed by the next sync, saving its values. A present row is deleted with capture on, as
    /// any local write: the app's triggers act on it and what they write is published.
    private func removeAsLocalDeletion(_ key: DatabaseValue, table: SyncedTable, reason: String) throws {
        let present = try ChangeLog.withCaptureEnabled(db) {
            try RemovedRow.remove(table, key: key, reason: reason, in: db)
        }
        guard !present else { return }
        if let local = try Row.fetchOne(
            db, sql: "SELECT * FROM \(Self.localCopy(of: table)) WHERE \(table.key.matches())",
            arguments: StatementArguments(values: try table.key.components(of: key))
        ) {
            try RemovedRow.save(table: table.name, key: key, row: local, reason: reason, in: db)
        }
        try ChangeLog.recordDeletion(key: key, tableID: table.id, in: db)
    }
}
