import Foundation
import GRDB

/// Applies decoded row changes inside the apply transaction of ``LocalStore``, column by column,
/// with conflict detection against unpushed local changes and last-writer-wins against values
/// already pushed or applied.
///
/// Rules (all deterministic, so every client converges):
/// - **Insert** of a new key creates the row. An insert for a key that exists is merged into the
///   row column by column like an update (upsert). An update for a key deleted here (tombstone,
///   or an unpushed local deletion) is ignored with a warning: deletions win; so is an insert,
///   unless it is newer than the tombstone (the key was created again after its deletion).
/// - **Update** of a column with an unpushed local edit and a different value is a ``Conflict``,
///   decided by the resolver; a local edit that loses (or has the same value as a newer remote
///   write) is superseded and no longer pending (see `merge`). Without a local edit, the value
///   is written unless this database already knows a newer write of that cell
///   (``LastWriterWins`` on clock, then database id), in which case it is counted as stale. An update for a missing row is ignored with a warning,
///   or, while other sets are held back and the row was never seen here (no tombstone), throws
///   ``UpdateOfUnseenRow`` so that the set waits for them (Docs/Conflicts.md, "Order across clients").
/// - **Delete** removes the row (missing rows are fine), discards the row's unpushed local changes
///   with a warning, and leaves a tombstone, unless the present row was created after the deletion
///   (its recorded or unpushed creation is newer, ``RowMerge/creationClock(of:)``): then it is
///   ignored, as the creation would have re-created the key had the deletion come first. An
///   unpushed local deletion likewise yields to a newer incoming creation.
/// - **References**: the apply runs with foreign keys off; ``finish()`` settles the references the
///   set left dangling to deleted rows by the reference rule (``ReferenceSettlement``).
/// - **Unique constraints** other than the key: of two rows that collide, the one with the larger
///   key is removed (saved in `rollingsync_removed_rows`, pushed as a deletion), whichever arrived
///   first, so every client keeps the same row. Any other constraint failure (a `CHECK`, a
///   `NOT NULL`, a validation trigger's `RAISE(ABORT, …)`) rejects only that row change, with a
///   warning; the rest of the set is applied.
/// - **App triggers** fire for every row written, so FTS indexes and other derived tables follow;
///   their own writes to synced tables are skipped (``AppTriggerGuard``): the client that made the
///   change published them.
struct ChangeSetApplier {
    private let db: Database
    private let localDatabaseID: String
    private let remoteDatabaseID: String
    private let resolver: ConflictResolver
    private let tables: [String: SyncedTable]
    /// The synced tables by id (the identity tables of references).
    private let tablesByID: [Int64: SyncedTable]
    private let hasPendingChanges: Bool
    private let setNumber: Int64
    private let isLate: Bool
    /// Whether an update of a row never seen here throws ``UpdateOfUnseenRow`` (other sets are held
    /// back) instead of being ignored.
    private let holdsUpdatesOfUnseenRows: Bool
    private(set) var report: ApplyReport
    /// Prepared statements by purpose, table and columns, so that no SQL is built per change.
    private var statements: [StatementKey: Statement] = [:]
    /// The identity claims' prepared statements, by table id (see ``RowIdentity``).
    private var claimStatements: [Int64: RowIdentity.ClaimStatements] = [:]
    /// Cell-clock records not written yet, four arguments per record (see ``recordCellClocks``).
    private var cellClockArguments: [DatabaseValue] = []
    /// The schema's references, settled by ``finish()``.
    private var references: ReferenceSettlement
    /// Keys of rows written by this set, for tables that reference others.
    private var touchedRows: [String: [DatabaseValue]] = [:]
    /// Keys of rows deleted by this set (or by the uniqueness rule), for referenced tables.
    private var deletedRows: [String: [DatabaseValue]] = [:]
    /// Columns dropped from each synced table (their incoming values are ignored), by table name.
    private let droppedColumns: [String: Set<String>]
    /// Lowercased names of the tables removed from synchronization (their changes are ignored).
    private let unsyncedTables: Set<String>
    /// Whether each table (by id) has tombstones, read when a row is first inserted into it.
    private var tablesWithTombstones: [Int64: Bool] = [:]
    /// The unique constraints other than the key, read when a collision first needs them.
    private let uniqueConstraints: UniqueConstraints
    /// Skips the app triggers' writes to synced tables during the apply (`nil` when the synced
    /// tables have no app triggers).
    private let triggerGuard: AppTriggerGuard?

    private struct StatementKey: Hashable {
        enum Purpose {
            case insert, update, delete, select, pending, tombstone, dropTombstone, cellClocks, recordCellClock, dropCellClocks, addTombstone
        }
        var purpose: Purpose
        var table: String = ""
        var columns: [String] = []
        var rows = 1
        /// The columns written as `zeroblob(?)`, then filled incrementally.
        var incremental: Set<String> = []
    }

    /// For each table (by name) with a rowid, the name that selects it; read when first needed.
    private var rowidNames: [String: String?] = [:]

    /// The large BLOB values among `values` that are written through ``IncrementalBlob`` (rowid
    /// tables only): their columns are written as `zeroblob(length)` first, so SQLite never holds
    /// a copy of the value while it builds the row.
    private mutating func incrementalValues(_ values: [(column: String, value: DatabaseValue)], table: SyncedTable) throws -> [String: Data] {
        // The app's triggers must see the values written, not the zeroblob placeholders.
        guard triggerGuard == nil else { return [:] }
        var large: [String: Data] = [:]
        for (column, value) in values {
            if case .blob(let data) = value.storage, data.count >= IncrementalBlob.threshold {
                large[column] = data
            }
        }
        guard !large.isEmpty else { return [:] }
        if rowidNames[table.name] == nil {
            rowidNames[table.name] = .some(try IncrementalBlob.rowidName(of: table.name, in: db))
        }
        return rowidNames[table.name].flatMap { $0 } == nil ? [:] : large
    }

    /// Fills the columns written as `zeroblob(length)` in row `key` with their values.
    private mutating func fillIncrementally(_ large: [String: Data], key: DatabaseValue, table: SyncedTable) throws {
        guard !large.isEmpty, let rowidName = rowidNames[table.name].flatMap({ $0 }) else { return }
        let rowid = try Int64.fetchOne(
            db, sql: "SELECT \(rowidName) FROM \(table.name.sqlIdentifier) WHERE \(table.key.matches())",
            arguments: StatementArguments(values: try table.key.components(of: key))
        )
        guard let rowid else { return }
        for (column, data) in large {
            try IncrementalBlob.write(data, to: table.name, column, rowid: rowid, in: db)
        }
    }

    /// The SQL placeholder of `column`: `zeroblob(?)` (bound to the length) for an incremental one.
    private static func placeholder(_ column: String, _ incremental: [String: Data]) -> String {
        incremental[column] == nil ? "?" : "zeroblob(?)"
    }

    /// The value bound for `column`: the length of an incremental one.
    private static func bound(_ column: String, _ value: DatabaseValue, _ incremental: [String: Data]) -> DatabaseValue {
        incremental[column].map { $0.count.databaseValue } ?? value
    }

    /// The prepared statement for `key`, built from `sql` the first time.
    private mutating func statement(_ key: StatementKey, _ sql: () -> String) throws -> Statement {
        if let statement = statements[key] { return statement }
        let statement = try db.makeStatement(sql: sql())
        statements[key] = statement
        return statement
    }

    /// Prepares an apply in the current transaction: the change log must be stamped already (so local
    /// clocks are final). Builds a temporary index of the unpushed local changes when there are any.
    ///
    /// `isLate` is `false` when every change and every cell of the set is newer than every clock
    /// this database has issued or seen (a cell keeps its own edit's clock, which can be older than
    /// its change's): then no stored value can be newer than an incoming one and no row can have
    /// been deleted after it, so the cell-clock and tombstone lookups are skipped. A late set gets
    /// them (the caller folds the appended clocks into the indexed ones first).
    init(
        db: Database,
        header: ChangeSetHeader,
        setNumber: Int64,
        isLate: Bool,
        holdsUpdatesOfUnseenRows: Bool = false,
        localDatabaseID: String,
        resolver: ConflictResolver
    ) throws {
        self.db = db
        self.setNumber = setNumber
        self.isLate = isLate
        self.holdsUpdatesOfUnseenRows = holdsUpdatesOfUnseenRows
        self.localDatabaseID = localDatabaseID
        remoteDatabaseID = header.databaseID
        self.resolver = resolver
        let syncedTables = try LocalStore.syncedTables(in: db)
        tables = Dictionary(uniqueKeysWithValues: syncedTables.map { ($0.name, $0) })
        tablesByID = Dictionary(uniqueKeysWithValues: syncedTables.map { ($0.id, $0) })
        references = try ReferenceSettlement(db: db, syncedTables: syncedTables)
        uniqueConstraints = UniqueConstraints(db: db)
        triggerGuard = try AppTriggerGuard.install(for: syncedTables, in: db)
        unsyncedTables = Set(try String.fetchAll(db, sql: "SELECT lower(name) FROM rollingsync_unsynced_tables"))
        droppedColumns = Dictionary(
            try Row.fetchAll(db, sql: """
                SELECT t.name, d.column_name FROM rollingsync_dropped_columns AS d JOIN rollingsync_tables AS t ON t.id = d.table_id
                """).map { ($0["name"] as String, [$0["column_name"] as String]) },
            uniquingKeysWith: { $0.union($1) }
        )
        report = ApplyReport(setID: header.setID, databaseID: header.databaseID, wasAlreadyApplied: false)
        hasPendingChanges = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_changes)") ?? false
        try db.execute(sql: "DROP TABLE IF EXISTS temp.rollingsync_pending")
        if hasPendingChanges {
            try db.execute(sql: """
                CREATE TEMP TABLE rollingsync_pending (
                    table_id INTEGER NOT NULL, row_key NOT NULL, op INTEGER NOT NULL,
                    column_name TEXT NOT NULL, clock INTEGER NOT NULL, republished INTEGER NOT NULL,
                    PRIMARY KEY (table_id, row_key, op, column_name)) WITHOUT ROWID;
                INSERT INTO temp.rollingsync_pending
                    SELECT table_id, row_key, op, coalesce(column_name, ''), max(clock), min(republished)
                    FROM rollingsync_changes GROUP BY table_id, row_key, op, coalesce(column_name, '');
                """)
        }
    }

    /// Writes the cell-clock records still buffered, settles the references the set left dangling
    /// (see ``ReferenceSettlement``) and removes the temporary index and the trigger guard; call it
    /// after the last change.
    mutating func finish() throws {
        try writeCellClocks()
        try references.settle(.rows(touched: touchedRows, deleted: deletedRows))
        report.warnings += references.warnings
        try db.execute(sql: "DROP TABLE IF EXISTS temp.rollingsync_pending")
        if let triggerGuard {
            report.warnings += try triggerGuard.takeSkippedWrites()
            try triggerGuard.remove()
        }
    }

    /// Applies one change.
    /// - Throws: ``LocalStoreError`` for an unregistered table or unknown column, the resolver's
    ///   errors, and SQLite errors (constraint violations…); the caller rolls the transaction back.
    mutating func apply(_ change: RowChange) throws {
        guard let table = tables[change.table] else {
            guard unsyncedTables.contains(change.table.lowercased()) else { throw LocalStoreError(.unregisteredTable, table: change.table) }
            let warning = ApplyReport.Warning.unsyncedTableIgnored(table: change.table)
            if !report.warnings.contains(warning) { report.warnings.append(warning) }
            return
        }
        var change = change
        if change.columns.contains(where: { !table.columns.contains($0.name) }) {
            change.columns = try change.columns.filter { column in
                if table.columns.contains(column.name) { return true }
                guard droppedColumns[table.name]?.contains(column.name) == true else {
                    throw LocalStoreError(.unknownColumn, table: table.name, column: column.name)
                }
                let warning = ApplyReport.Warning.droppedColumnIgnored(table: table.name, column: column.name)
                if !report.warnings.contains(warning) { report.warnings.append(warning) }
                return false
            }
        }
        var pending = try pendingRow(table: table, key: change.key)
        switch change.kind {
        case .delete:
            try applyDelete(change, table: table, pending: pending)
            if references.isReferenced(table.name) {
                deletedRows[table.name, default: []].append(change.key)
            }
        case .insert, .update:
            for index in change.columns.indices {
                guard let identities = table.localReferences[change.columns[index].name].flatMap({ tablesByID[$0] }) else { continue }
                // A reference of a new row to itself is its own id, known once it is claimed (insertIfAbsent).
                let toItself = identities.id == table.id && change.columns[index].value == change.key
                change.columns[index].value = try RowIdentity.localValue(of: change.columns[index].value, in: identities, db: db, reserving: !toItself)
            }
            if references.hasReferences(from: table.name) {
                touchedRows[table.name, default: []].append(change.key)
            }
            let localDeletion = pending.isLocallyDeleted ? pending.deleteClock : nil
            if try isTombstoned(table: table, key: change.key, against: change, pending: pending)
                || localDeletion.map({ RowMerge.deletionWins(tombstone: $0, over: change) }) == true
            {
                report.warnings.append(.changeToDeletedRowIgnored(table: table.name, key: change.key))
                return
            }
            if localDeletion != nil {
                // A creation newer than the unpushed local deletion: as where the deletion came
                // first and the creation re-created the key, the row comes back and the deletion is
                // moot (it is not pushed).
                try ChangeLog.dropChanges(key: change.key, tableID: table.id, in: db)
                pending = PendingRow()
            }
            if change.kind == .insert, try insertIfAbsent(change, table: table) {
                return
            }
            try merge(change, table: table, pending: pending)
        }
    }

    private mutating func pendingRow(table: SyncedTable, key: DatabaseValue) throws -> PendingRow {
        var pending = PendingRow()
        guard hasPendingChanges else { return pending }
        let statement = try statement(StatementKey(purpose: .pending)) {
            "SELECT op, column_name, clock, republished FROM temp.rollingsync_pending WHERE table_id = ? AND row_key = ?"
        }
        let rows = try Row.fetchCursor(statement, arguments: [table.id, key])
        while let row = try rows.next() {
            pending.add(
                op: row["op"], column: row["column_name"], clock: HLCTimestamp(rawValue: UInt64(bitPattern: row["clock"])),
                republished: row["republished"]
            )
        }
        return pending
    }

    /// Whether a deletion known here (a tombstone) wins over `change`, by
    /// ``RowMerge/deletionWins(tombstone:over:at:)``. Sets that are not late are newer than every
    /// tombstone, so they skip the lookup.
    private mutating func isTombstoned(table: SyncedTable, key: DatabaseValue, against change: RowChange, pending: PendingRow) throws -> Bool {
        guard isLate else { return false }
        let statement = try statement(StatementKey(purpose: .tombstone)) {
            "SELECT clock FROM rollingsync_tombstones WHERE table_id = ? AND row_key = ?"
        }
        guard let clock = try Int64.fetchOne(statement, arguments: [table.id, key]) else { return false }
        let tombstone = HLCTimestamp(rawValue: UInt64(bitPattern: clock))
        // An unpushed local creation newer than the tombstone created the key again (the
        // tombstone goes when it is pushed): as on clients that have that creation.
        if let created = pending.creationClock(columns: table.columns), created > tombstone { return false }
        return RowMerge.deletionWins(tombstone: tombstone, over: change)
    }

    /// Whether this database knows `key` of `table` was deleted (a tombstone, whatever its clock).
    private mutating func hasTombstone(table: SyncedTable, key: DatabaseValue) throws -> Bool {
        let statement = try statement(StatementKey(purpose: .tombstone)) {
            "SELECT clock FROM rollingsync_tombstones WHERE table_id = ? AND row_key = ?"
        }
        return try Int64.fetchOne(statement, arguments: [table.id, key]) != nil
    }

    /// Forgets the tombstone of a key created again (see ``isTombstoned(table:key:against:pending:)``), so
    /// that later changes of the new row are not taken for changes of a deleted one.
    private mutating func dropTombstone(table: SyncedTable, key: DatabaseValue) throws {
        if tablesWithTombstones[table.id] == nil {
            tablesWithTombstones[table.id] = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_tombstones WHERE table_id = ?)", arguments: [table.id]
            ) ?? false
        }
        guard tablesWithTombstones[table.id] == true else { return }
        try statement(StatementKey(purpose: .dropTombstone)) {
            "DELETE FROM rollingsync_tombstones WHERE table_id = ? AND row_key = ?"
        }.execute(arguments: [table.id, key])
    }

    /// Inserts the row if its key is free; returns `false` (and writes nothing) if the key exists.
    private mutating func insertIfAbsent(_ change: RowChange, table: SyncedTable) throws -> Bool {
        let names = table.keyColumns + change.columns.map { $0.name }
        guard let keyValues = try localKeyValues(of: change.key, in: table) else { return false }
        var change = change
        for index in change.columns.indices where change.columns[index].value == change.key && table.localReferences[change.columns[index].name] == table.id {
            change.columns[index].value = keyValues[0]
        }
        let incremental = try incrementalValues(change.columns.map { ($0.name, $0.value) }, table: table)
        let values: [DatabaseValue] = keyValues + change.columns.map { Self.bound($0.name, $0.value, incremental) }
        let written = try execute(
            StatementKey(purpose: .insert, table: table.name, columns: change.columns.map { $0.name }, incremental: Set(incremental.keys)),
            {
                // A claimed local key is free; a rowid is no conflict target.
                """
                INSERT INTO \(table.name.sqlIdentifier) (\(names.map { $0.sqlIdentifier }.joined(separator: ", ")))
                VALUES (\(names.map { Self.placeholder($0, incremental) }.joined(separator: ", ")))
                \(table.keyIsLocal ? "" : "ON CONFLICT (\(table.key.columnList)) DO NOTHING")
                """
            },
            values, writing: change.key, of: table, exists: false,
            newValues: { Dictionary(change.columns.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last }) }
        )
        guard written else {
            if table.keyIsLocal, case .string(let global) = change.key.storage {
                try RowIdentity.release(global, in: table, db: db)
            }
            return true
        }
        guard db.changesCount == 1 else { return false }
        try fillIncrementally(incremental, key: change.key, table: table)
        try dropTombstone(table: table, key: change.key)
        // The row's creation clock (its oldest cell's), and the clock of each cell edited after the
        // creation before it was pushed: exactly what the creating client stored when it pushed,
        // so another creation of the same key is decided alike here and there.
        let created = RowMerge.creationClock(of: change)
        try recordCellClocks(
            table: table, key: change.key,
            clocks: [(LocalStoreSchema.rowClockColumn, created)] + change.columns.filter { $0.clock > created }.map { ($0.name, $0.clock) }
        )
        report.insertedRows += 1
        return true
    }

    /// The local values of the key columns of the row `key` about to be inserted: its key's own
    /// values, with every column named by a global identity translated (``RowIdentity``). A local
    /// key is claimed; `nil` when the claim finds the row here already (merge into it instead).
    private mutating func localKeyValues(of key: DatabaseValue, in table: SyncedTable) throws -> [DatabaseValue]? {
        guard table.keyIsLocal else {
            let components = try table.key.components(of: key)
            guard table.key.hasIdentities else { return components }
            return try zip(components, table.key.identities).map { value, identity in
                try identity.flatMap { tablesByID[$0] }.map { try RowIdentity.localValue(of: value, in: $0, db: db) } ?? value
            }
        }
        guard case .string(let global) = key.storage else {
            throw ChangeSetFormatError(.malformed("a row of \(table.name) is not named by a global identity"))
        }
        let statements = try claimStatements[table.id] ?? RowIdentity.ClaimStatements(table: table, db: db)
        let claim: RowIdentity.Claim
        do {
            // The references move while the reserved identity still names the row: a guarded
            // write finds a child row by its key, which names the row by that identity.
            claim = try RowIdentity.claim(global, in: table, using: statements, db: db) { [references, triggerGuard] from, to in
                try references.moveReferences(to: table, from: from, to: to, guardedBy: triggerGuard)
            }
            claimStatements[table.id] = statements
        } catch {
            // A failed statement repeats its error when reset for the next use: prepare anew.
            claimStatements[table.id] = nil
            throw error
        }
        return claim.exists ? nil : [claim.localID.databaseValue]
    }

    /// Writes the winning columns of an update (or of an insert for an existing row).
    ///
    /// An incoming write no newer than a write of the cell this database already knows is stale
    /// (``RowMerge/isStale(_:against:)``, counted), with or without an unpushed local edit. Else a
    /// cell with an unpushed local edit is merged by ``RowMerge/mergeCell(local:remote:held:table:key:column:resolver:)``
    /// (a superseded local edit leaves the log; a decision against the later write is
    /// re-published), and any other cell takes the incoming value.
    private mutating func merge(_ change: RowChange, table: SyncedTable, pending: PendingRow) throws {
        var pending = pending
        if change.kind == .insert, let created = pending.creationClock(columns: table.columns),
            LastWriterWins.isNewer(RowMerge.creationClock(of: change), remoteDatabaseID, than: created, localDatabaseID)
        {
            // A newer creation of the key than the unpushed local one: the local creation (and a
            // deletion before it) is superseded whole; only edits made since stay pending, and
            // compete cell by cell below.
            try ChangeLog.dropCreation(key: change.key, tableID: table.id, in: db)
            pending.insertClock = nil
            pending.deleteClock = nil
        }
        if change.kind == .insert {
            // A creation newer than the key's tombstone (else it was ignored before): the key is
            // created again, as when the row was absent (see insertIfAbsent).
            try dropTombstone(table: table, key: change.key)
        }
        let storedClocks = try cellClocks(table: table, key: change.key)
        let localRow = pending.isEmpty ? nil : try currentRow(table: table, key: change.key)
        var assignments: [(column: String, value: DatabaseValue)] = []
        // A creation merged into a present row records its clock as the row's, as when it inserts
        // the row (the newer creation is kept): a later-arriving older deletion then loses here as
        // it does where the creation arrived last (see applyDelete).
        var remoteClocks: [(String, HLCTimestamp)] =
            change.kind == .insert ? [(LocalStoreSchema.rowClockColumn, RowMerge.creationClock(of: change))] : []
        var superseded: [String] = []
        var republish: [String] = []
        for column in change.columns {
            // An incoming write no newer than the cell's known write is stale, whatever is pending
            // here: a pending local value is newer still, or it was superseded (a write published
            // again by a client registering after its removal meets clients that applied it).
            // Otherwise a pending local value counts unless a newer write of the cell was applied
            // since (it superseded the value, which only a pending creation still covers).
            if RowMerge.isStale(
                (column.clock, remoteDatabaseID),
                against: RowMerge.currentWrite(cell: storedClocks[column.name], row: storedClocks[LocalStoreSchema.rowClockColumn])
            ) {
                report.staleValuesIgnored += 1
            } else if let localClock = pending.clock(of: column.name), let localRow,
                storedClocks[column.name].map({ LastWriterWins.isNewer(localClock, localDatabaseID, than: $0.clock, $0.databaseID) }) ?? true
            {
                // A write published before and logged again merges as published writes do.
                let republished = pending.isRepublished(column.name)
                let verdict = try RowMerge.mergeCell(
                    local: CellWrite(value: localRow[column.name], clock: localClock, databaseID: localDatabaseID),
                    remote: CellWrite(value: column.value, clock: column.clock, databaseID: remoteDatabaseID),
                    held: .local, table: table.name, key: change.key, column: column.name,
                    resolver: republished ? .lastWriterWins : resolver
                )
                if !republished, let reported = verdict.reported { report.conflicts.append(reported) }
                if let value = verdict.write { assignments.append((column.name, value)) }
                if verdict.takesRemoteClock { remoteClocks.append((column.name, column.clock)) }
                if verdict.dropsPendingEdit { superseded.append(column.name) }
                if verdict.republishes { republish.append(column.name) }
            } else {
                assignments.append((column.name, column.value))
                remoteClocks.append((column.name, column.clock))
            }
        }
        if !assignments.isEmpty {
            let incremental = try incrementalValues(assignments, table: table)
            let values: [DatabaseValue] = try assignments.map { Self.bound($0.column, $0.value, incremental) } + table.key.components(of: change.key)
            let written = try execute(
                StatementKey(purpose: .update, table: table.name, columns: assignments.map { $0.column }, incremental: Set(incremental.keys)),
                {
                    """
                    UPDATE \(table.name.sqlIdentifier)
                    SET \(assignments.map { "\($0.column.sqlIdentifier) = \(Self.placeholder($0.column, incremental))" }.joined(separator: ", "))
                    WHERE \(table.key.matches())
                    """
                },
                values, writing: change.key, of: table, exists: true,
                newValues: { Dictionary(assignments.map { ($0.column, $0.value) }, uniquingKeysWith: { _, last in last }) }
            )
            guard written else { return }
            guard db.changesCount == 1 else {
                if holdsUpdatesOfUnseenRows, try !hasTombstone(table: table, key: change.key) {
                    throw UpdateOfUnseenRow(table: table.name, key: change.key)
                }
                report.warnings.append(.changeToDeletedRowIgnored(table: table.name, key: change.key))
                return
            }
            try fillIncrementally(incremental, key: change.key, table: table)
            report.updatedRows += 1
        }
        if !remoteClocks.isEmpty {
            try recordCellClocks(table: table, key: change.key, clocks: remoteClocks)
        }
        for column in superseded {
            try ChangeLog.dropEdit(of: column, key: change.key, tableID: table.id, in: db)
        }
        for column in republish {
            try ChangeLog.republish(column, key: change.key, tableID: table.id, in: db)
        }
    }

    /// Runs the write of one row (`key`; `exists` when it is an update of a present row, whose
    /// other columns keep their values) with `newValues` for the written columns (built only when
    /// a constraint fails), under the uniqueness rule (``UniqueConstraints/write(key:table:attempt:collisionRow:removeLoser:)``):
    /// colliding rows that lose are removed (their values saved, their deletion captured and
    /// pushed); a row that loses is removed, or, when new, not written and its deletion pushed.
    /// Any other constraint failure rejects the write. Both are reported.
    /// - Returns: `false` when the write was not made (this row lost or was rejected).
    private mutating func execute(
        _ statementKey: StatementKey, _ sql: () -> String, _ values: [DatabaseValue], writing key: DatabaseValue, of table: SyncedTable,
        exists: Bool, newValues: () -> [String: DatabaseValue]
    ) throws -> Bool {
        let outcome = try uniqueConstraints.write(
            key: key, table: table,
            attempt: {
                let statement = try statement(statementKey, sql)
                try triggerGuard.permit(table, key: key)
                do {
                    try statement.execute(binding: values)
                } catch {
                    // A failed statement repeats its error when reset for the next use: prepare anew.
                    statements[statementKey] = nil
                    throw error
                }
            },
            collisionRow: {
                var row = newValues()
                if exists, let current = try currentRow(table: table, key: key) {
                    for (column, value) in current where row[column] == nil { row[column] = value }
                }
                // The key's local values: a row key named by identities is no value of the table.
                if !table.key.hasIdentities {
                    for (column, value) in zip(table.keyColumns, try table.key.components(of: key)) { row[column] = value }
                } else if !exists {
                    for (column, value) in zip(table.keyColumns, values) { row[column] = value }
                }
                return row
            },
            removeLoser: { loser in
                try removeCapturing(table: table, key: loser, reason: "it collided with row \(key) on a unique constraint")
                report.warnings.append(.rowRemovedByUniqueConstraint(table: table.name, key: loser, keptKey: key))
            }
        )
        switch outcome {
        case .written:
            return true
        case .lost(let winner, let row):
            try lose(row, key: key, exists: exists, table: table, to: winner)
            return false
        case .rejected(let reason, let row):
            try RemovedRow.save(table: table.name, key: key, row: Row(row), reason: "refused by a constraint: \(reason)", in: db)
            report.warnings.append(.changeRejectedByConstraint(table: table.name, key: key, reason: reason))
            return false
        }
    }

    /// The incoming row `key` lost a uniqueness collision to `winner`: an existing row is removed,
    /// a new one is not written; either way its values are saved and its deletion is pushed.
    private mutating func lose(_ row: [String: DatabaseValue], key: DatabaseValue, exists: Bool, table: SyncedTable, to winner: DatabaseValue) throws {
        let reason = "it collided with row \(winner) on a unique constraint"
        if exists {
            try removeCapturing(table: table, key: key, reason: reason)
        } else {
            try RemovedRow.save(table: table.name, key: key, row: Row(row), reason: reason, in: db)
            try ChangeLog.recordDeletion(key: key, tableID: table.id, in: db)
            if references.isReferenced(table.name) {
                deletedRows[table.name, default: []].append(key)
            }
        }
        report.warnings.append(.rowRemovedByUniqueConstraint(table: table.name, key: key, keptKey: winner))
    }

    /// Removes a present row as a local deletion (captured, so it is pushed), saving its values.
    private mutating func removeCapturing(table: SyncedTable, key: DatabaseValue, reason: String) throws {
        _ = try ChangeLog.withCaptureEnabled(db) {
            try RemovedRow.remove(table, key: key, reason: reason, in: db)
        }
        if references.isReferenced(table.name) {
            deletedRows[table.name, default: []].append(key)
        }
    }

    /// Deletes the row and leaves a tombstone, unless the row here was created (again) after the
    /// deletion: then the deletion is ignored, as where it arrived first and the newer creation
    /// re-created the key (``RowMerge/deletionWins(tombstone:over:at:)``), so every order of
    /// arrival ends alike. Unpushed local changes of a deleted row are dropped.
    private mutating func applyDelete(_ change: RowChange, table: SyncedTable, pending: PendingRow) throws {
        if let created = try creationClock(table: table, key: change.key, pending: pending),
            !RowMerge.deletionWins(tombstone: change.clock, over: .insert, at: created)
        {
            report.staleValuesIgnored += 1
            return
        }
        if pending.insertClock != nil || !pending.columnClocks.isEmpty {
            if pending.hasLocalWrites {
                report.warnings.append(.remoteDeleteDiscardedLocalChanges(table: table.name, key: change.key))
            }
            try ChangeLog.dropChanges(key: change.key, tableID: table.id, in: db)
        }
        try triggerGuard.permit(table, key: change.key)
        try statement(StatementKey(purpose: .delete, table: table.name)) {
            "DELETE FROM \(table.name.sqlIdentifier) WHERE \(table.key.matches())"
        }.execute(arguments: StatementArguments(values: try table.key.components(of: change.key)))
        report.deletedRows += db.changesCount
        try statement(StatementKey(purpose: .addTombstone)) {
            """
            INSERT INTO rollingsync_tombstones (table_id, row_key, clock) VALUES (?, ?, ?)
            ON CONFLICT DO UPDATE SET clock = max(clock, excluded.clock)
            """
        }.execute(arguments: [table.id, change.key, change.clock.databaseInteger])
        try statement(StatementKey(purpose: .dropCellClocks)) {
            "DELETE FROM rollingsync_cell_clocks WHERE table_id = ? AND row_key = ?"
        }.execute(arguments: [table.id, change.key])
    }

    /// The clock of the newest creation known here of the row `key`, if the row is present: its
    /// unpushed local creation (unless deleted since), or the creation clock recorded for it. Only
    /// a late set can be older than a recorded creation (``cellClocks(table:key:)``).
    private mutating func creationClock(table: SyncedTable, key: DatabaseValue, pending: PendingRow) throws -> HLCTimestamp? {
        var created = pending.creationClock(columns: table.columns)
        if let recorded = try cellClocks(table: table, key: key)[LocalStoreSchema.rowClockColumn]?.clock,
            try currentRow(table: table, key: key) != nil
        {
            created = max(created ?? recorded, recorded)
        }
        return created
    }

    private mutating func currentRow(table: SyncedTable, key: DatabaseValue) throws -> Row? {
        let statement = try statement(StatementKey(purpose: .select, table: table.name)) {
            "SELECT * FROM \(table.name.sqlIdentifier) WHERE \(table.key.matches())"
        }
        return try Row.fetchOne(statement, arguments: StatementArguments(values: try table.key.components(of: key)))
    }

    private mutating func cellClocks(table: SyncedTable, key: DatabaseValue) throws -> [String: (clock: HLCTimestamp, databaseID: String)] {
        guard isLate else { return [:] }
        let statement = try statement(StatementKey(purpose: .cellClocks)) {
            """
            SELECT c.column_name, c.clock, w.database_id FROM rollingsync_cell_clocks AS c
            JOIN rollingsync_writers AS w ON w.number = c.writer WHERE c.table_id = ? AND c.row_key = ?
            """
        }
        var clocks: [String: (clock: HLCTimestamp, databaseID: String)] = [:]
        let rows = try Row.fetchCursor(statement, arguments: [table.id, key])
        while let row = try rows.next() {
            clocks[row["column_name"]] = (HLCTimestamp(rawValue: UInt64(bitPattern: row["clock"])), row["database_id"])
        }
        return clocks
    }

    /// Appends the clocks of a row's applied cells as one record (folded into the indexed cell clocks
    /// by ``LocalStoreSchema/compactAppliedClocks(in:)`` when a late set needs them, or when most
    /// records are repeats; a set never holds the same row twice, so its own lookups do not need
    /// them). Records are written in
    /// multi-row inserts of ``cellClockBatchSize`` rows; ``finish()`` writes the rest.
    private mutating func recordCellClocks(table: SyncedTable, key: DatabaseValue, clocks: [(String, HLCTimestamp)]) throws {
        var encoded: [UInt8] = []
        for (column, clock) in clocks {
            encoded.appendString(column)
            encoded.appendVarint(clock.rawValue)
        }
        cellClockArguments += [setNumber.databaseValue, table.id.databaseValue, key, Data(encoded).databaseValue]
        if cellClockArguments.count == 4 * Self.cellClockBatchSize {
            try writeCellClocks()
        }
    }

    /// Rows per insert of cell-clock records.
    private static let cellClockBatchSize = 64

    private mutating func writeCellClocks() throws {
        let rows = cellClockArguments.count / 4
        guard rows > 0 else { return }
        let key = StatementKey(purpose: .recordCellClock, rows: rows)
        do {
            try statement(key) {
                "INSERT INTO rollingsync_applied_clocks (set_number, table_id, row_key, clocks) VALUES "
                    + Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")
            }.execute(binding: cellClockArguments)
        } catch {
            // A failed statement repeats its error when reset for the next use: prepare anew.
            statements[key] = nil
            throw error
        }
        cellClockArguments.removeAll(keepingCapacity: true)
    }
}
