import Foundation
import GRDB

/// RollingSync's own tables, created next to the application's tables and versioned with one
/// ``RollingSyncMigrator`` (``migrator``), which ``LocalStore/init(writer:)`` runs; their readers
/// and writers all live in this folder (``LocalStore`` and its extensions, ``LocalSyncState``).
/// Every name starts with ``prefix``; applications must not use that prefix. The applied
/// migrations are recorded in `rollingsync_migrations`, never in the application's
/// `grdb_migrations` (see ``RollingSyncMigrator``).
///
/// - `rollingsync_state`: one row; this database's database id, the newest hybrid logical clock issued
///   or seen (see ``ChangeLog``), and the capture switch `applying` the capture triggers check (owned by ``ChangeLog``).
/// - `rollingsync_tables`: the registered synced tables and their key columns.
/// - `rollingsync_changes`: the change log the triggers append to (one row per inserted row, per
///   updated row and group of columns, per deleted row; no values, they are read from the table
///   when pushing; an update's changed columns in `column_set`, spelled out as one row per column
///   `column_name` when stamped, see ``ChangeLog/stamp(in:)``), in
///   `seq` order, with the wall-clock reading of each change (a Julian day number, see
///   ``wallClockReading``) and its hybrid logical clock once stamped (see ``ChangeLog``); the
///   capture triggers' entries for a row that exists after the change also record the row's
///   rowid (`row_id`) where the table has one besides its key (``SyncedTable/rowidName``), a hint
///   the push checks against the key (other entries leave it NULL); `republished` marks a write
///   this database published before and logged again (``ChangeLog/recordPublishedWrites(of:databaseID:in:)``),
///   which merges by its clock alone, never as a local edit in conflict.
/// - `rollingsync_cell_clocks`: clock and writer of the last pushed or applied update per cell,
///   for last-writer-wins against late remote changes; a record whose column is
///   ``rowClockColumn`` (the empty name) holds the clock of the row's last pushed or applied
///   insert, which wrote every column. The writer is a number of `rollingsync_writers`.
/// - `rollingsync_writers`: the database ids that wrote the cell clocks, numbered
///   (``writerNumber(of:in:)``), so that a clock record holds a small integer instead of a
///   36-character id; rows are added, never removed (one per database ever seen).
/// - `rollingsync_applied_clocks`: cell clocks of applied remote updates, appended cheaply during
///   an apply and folded into `rollingsync_cell_clocks` when a late set needs them (see
///   ``ChangeSetApplier``), or when they are mostly repeats
///   (``foldAppliedClocksIfMostlyRepeats(spanBefore:in:)``).
/// - `rollingsync_tombstones`: deleted row keys, so late changes to a deleted row are ignored.
/// - `rollingsync_applied_sets`: identifiers of the change sets already applied (or pushed), numbered.
/// - `rollingsync_removed_rows`: the last values of every row a data rule removed (a reference to a
///   deleted row, a collision on a unique constraint; see Docs/Conflicts.md), so nothing a rule
///   removes is lost for good (see ``RemovedRow``).
/// - `rollingsync_tables.columns`: the columns the table's capture triggers were generated for (a
///   JSON array), `key_column` the key's column and `key_type` its declared type (for a composite
///   key, JSON arrays of the columns and of their types), so a schema change is noticed (see
///   ``SchemaRefresh``); `rollingsync_state.schema_version`
///   the `PRAGMA schema_version` when they were last checked, which makes the check of a sync cheap.
/// - `rollingsync_dropped_columns`: columns dropped from a synced table; incoming values for them
///   are ignored with a warning rather than held back as needing an upgrade;
///   `rollingsync_unsynced_tables` likewise names the tables removed from synchronization.
/// - `rollingsync_identities`: the global identity of every row of a table whose keys each
///   database assigns (integer keys, rowids), by local id, live, deleted or reserved (see
///   ``RowIdentity``).
enum LocalStoreSchema {
    static let prefix = "rollingsync_"

    /// Change-log operation codes (also the record kinds of ``RowChange/Kind``).
    static let insertOperation = Int(RowChange.Kind.insert.rawValue)
    static let updateOperation = Int(RowChange.Kind.update.rawValue)
    static let deleteOperation = Int(RowChange.Kind.delete.rawValue)

    /// The column name of a row's insert clock in `rollingsync_cell_clocks`: no column has it. Two
    /// clients that create the same key at once then agree on the newer row, whichever arrives
    /// last, as for any cell.
    static let rowClockColumn = ""

    /// The SQL expression of the wall-clock reading a change-log row records: the current Julian day
    /// number (a REAL; without an argument SQLite parses no time string), read as is so that the
    /// capture triggers do no arithmetic (SQLite 3.40 has no `unixepoch('subsec')`).
    /// ``hybridClockCandidate(ofWall:)`` converts it when stamping.
    static let wallClockReading = "julianday()"

    /// The SQL expression converting a recorded ``wallClockReading`` (the SQL expression `wall`) into
    /// a hybrid-logical-clock candidate: milliseconds since 1970, rounded, shifted left 16 bits.
    static func hybridClockCandidate(ofWall wall: String) -> String {
        "(CAST((\(wall) - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) << 16)"
    }

    /// The distinct values, ascending, of `column` of `table` (qualified by its schema), a
    /// RollingSync table whose primary key begins with that table id: one index lookup each,
    /// rather than a scan of every record.
    static func tableIDs(in table: String, column: String, db: Database) throws -> [Int64] {
        var ids: [Int64] = []
        while let next = try Int64.fetchOne(
            db, sql: "SELECT min(\(column)) FROM \(table) WHERE \(column) > ?", arguments: [ids.last ?? .min]
        ) {
            ids.append(next)
        }
        return ids
    }

    /// Whether `table` has the same columns in the schemas `schema` and `other` (attached
    /// databases): by name, declared type, `NOT NULL`, key position and hidden or generated kind,
    /// in the same order. Then `INSERT INTO schema.table SELECT * FROM other.table` writes each
    /// column into the one of its name, and SQLite may copy it page by page (its transfer
    /// optimization checks the rest).
    static func hasSameColumns(_ table: String, in schema: String, as other: String, db: Database) throws -> Bool {
        let columns = "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?, ?) ORDER BY cid"
        return try Row.fetchAll(db, sql: columns, arguments: [table, schema]) == Row.fetchAll(db, sql: columns, arguments: [table, other])
    }

    /// The number of the writer `databaseID` in `rollingsync_writers`, added if new.
    static func writerNumber(of databaseID: String, in db: Database) throws -> Int64 {
        try db.execute(sql: "INSERT OR IGNORE INTO rollingsync_writers (database_id) VALUES (?)", arguments: [databaseID])
        guard let number = try Int64.fetchOne(db, sql: "SELECT number FROM rollingsync_writers WHERE database_id = ?", arguments: [databaseID]) else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "no writer number for a database id just recorded")
        }
        return number
    }

    /// The SQL expression of the database id of the writer numbered by the SQL expression `number`.
    static func databaseID(ofWriter number: String) -> String {
        "(SELECT database_id FROM rollingsync_writers WHERE number = \(number))"
    }

    /// The conflict clause of every write into `rollingsync_cell_clocks`, the one rule that keeps a
    /// cell's newest write: the larger clock wins, then the larger database id (as in
    /// ``LastWriterWins``); a repeated record changes nothing. The ids are compared only when the
    /// clocks are equal.
    static let keepingNewerCellClock = """
        ON CONFLICT DO UPDATE SET clock = excluded.clock, writer = excluded.writer
        WHERE excluded.clock > clock OR (excluded.clock = clock
            AND \(databaseID(ofWriter: "excluded.writer")) > \(databaseID(ofWriter: "rollingsync_cell_clocks.writer")))
        """

    /// Folds the appended clocks of applied updates into the indexed per-cell clocks
    /// (``keepingNewerCellClock``) and empties the append-only table. Each appended record holds
    /// one row's cells as repeated (column name, clock) pairs, encoded like change-set strings and
    /// varints; its writer is its set's.
    static func compactAppliedClocks(in db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT a.table_id, a.row_key, a.clocks, s.client_id
            FROM rollingsync_applied_clocks AS a JOIN rollingsync_applied_sets AS s ON s.number = a.set_number
            ORDER BY a.seq
            """)
        let upsert = try db.makeStatement(sql: """
            INSERT INTO rollingsync_cell_clocks (table_id, row_key, column_name, clock, writer) VALUES (?, ?, ?, ?, ?)
            \(keepingNewerCellClock)
            """)
        var writers: [String: Int64] = [:]
        while let row = try rows.next() {
            let tableID: Int64 = row["table_id"]
            let key: DatabaseValue = row["row_key"]
            let databaseID: String = row["client_id"]
            let writer = try writers[databaseID] ?? writerNumber(of: databaseID, in: db)
            writers[databaseID] = writer
            let blob: Data = row["clocks"]
            var cursor = ByteCursor([UInt8](blob), streamOffset: 0)
            while !cursor.isAtEnd {
                let column = try cursor.string(limit: ChangeSetFormat.maximumNameLength)
                let clock = Int64(bitPattern: try cursor.varint())
                try upsert.execute(arguments: [tableID, key, column, clock, writer])
            }
        }
        try db.execute(sql: "DELETE FROM rollingsync_applied_clocks")
    }

    /// From how many appended clock records on an apply checks whether most of them are repeats
    /// (``foldAppliedClocksIfMostlyRepeats(spanBefore:in:)``).
    static let appliedClockCheckMinimum: Int64 = 1 << 16

    /// An upper bound of the number of records in `rollingsync_applied_clocks`, from its `seq`
    /// bounds, in two index lookups (each bound in a query of its own: SQLite answers a `min` or
    /// `max` from the index only when it is a query's only aggregate, and scans the table
    /// otherwise). Records are appended with growing numbers and removed all together, except
    /// those of a table removed from synchronization, which only makes the bound larger.
    static func appliedClockSpan(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: """
            SELECT coalesce((SELECT max(seq) FROM rollingsync_applied_clocks) - (SELECT min(seq) FROM rollingsync_applied_clocks) + 1, 0)
            """) ?? 0
    }

    /// Folds the appended clocks (``compactAppliedClocks(in:)``) when they hold more than two
    /// records per row, so that a client whose sets are never late (it only receives, from one
    /// writer that is always ahead of it) keeps records in proportion to the rows changed, not to
    /// the edits applied.
    ///
    /// The exact count of distinct rows costs a sort of the records, so it is taken only when the
    /// span (``appliedClockSpan(in:)``) passes a power of two from ``appliedClockCheckMinimum`` on,
    /// and only when the set just applied, which names each row once, added fewer records than
    /// were there before it (otherwise they cannot be mostly repeats). Between two checks the
    /// records at most double, so they stay below about four per row changed, plus the minimum and
    /// the records of the last set (a check skipped because that set was large).
    /// - Parameter before: the span before the set's records were appended.
    static func foldAppliedClocksIfMostlyRepeats(spanBefore before: Int64, in db: Database) throws {
        let after = try appliedClockSpan(in: db)
        func bits(_ value: Int64) -> Int { Int64.bitWidth - value.leadingZeroBitCount }
        guard after >= appliedClockCheckMinimum, bits(after) > bits(before), after - before < before else { return }
        let counts = try Row.fetchOne(db, sql: """
            SELECT count(*) AS records,
                (SELECT count(*) FROM (SELECT DISTINCT table_id, row_key FROM rollingsync_applied_clocks)) AS rows
            FROM rollingsync_applied_clocks
            """)
        let records: Int64 = counts?["records"] ?? 0
        let rows: Int64 = counts?["rows"] ?? 0
        if records > 2 * rows {
            try compactAppliedClocks(in: db)
        }
    }

    /// The identifiers of ``migrator``'s migrations that releases before 2026-11-26 recorded in
    /// GRDB's `grdb_migrations`.
    static let formerGRDBIdentifiers: Set<String> = [
        "rollingsync v1", "rollingsync v2: removed rows", "rollingsync v3: schema evolution",
        "rollingsync_registration", "rollingsync_registration own sets",
    ]

    static var migrator: RollingSyncMigrator {
        var migrator = RollingSyncMigrator(identifierPrefix: "rollingsync", formerGRDBIdentifiers: formerGRDBIdentifiers)
        migrator.registerMigration("rollingsync v1") { db in
            try db.execute(sql: """
                CREATE TABLE rollingsync_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    client_id TEXT NOT NULL,
                    clock INTEGER NOT NULL,
                    applying INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE rollingsync_tables (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    key_column TEXT NOT NULL);
                CREATE TABLE rollingsync_changes (
                    seq INTEGER PRIMARY KEY,
                    wall REAL NOT NULL,
                    clock INTEGER,
                    table_id INTEGER NOT NULL,
                    row_key NOT NULL,
                    op INTEGER NOT NULL,
                    column_name TEXT);
                CREATE TABLE rollingsync_cell_clocks (
                    table_id INTEGER NOT NULL,
                    row_key NOT NULL,
                    column_name TEXT NOT NULL,
                    clock INTEGER NOT NULL,
                    client_id TEXT NOT NULL,
                    PRIMARY KEY (table_id, row_key, column_name)) WITHOUT ROWID;
                CREATE TABLE rollingsync_tombstones (
                    table_id INTEGER NOT NULL,
                    row_key NOT NULL,
                    clock INTEGER NOT NULL,
                    PRIMARY KEY (table_id, row_key)) WITHOUT ROWID;
                CREATE TABLE rollingsync_applied_sets (
                    number INTEGER PRIMARY KEY,
                    set_id TEXT NOT NULL UNIQUE,
                    client_id TEXT NOT NULL,
                    change_count INTEGER NOT NULL,
                    maximum_clock INTEGER NOT NULL,
                    recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
                CREATE TABLE rollingsync_applied_clocks (
                    seq INTEGER PRIMARY KEY,
                    set_number INTEGER NOT NULL,
                    table_id INTEGER NOT NULL,
                    row_key NOT NULL,
                    clocks BLOB NOT NULL);
                """)
            try db.execute(
                sql: "INSERT INTO rollingsync_state (id, client_id, clock) VALUES (1, ?, 0)",
                arguments: [UUID().uuidString]
            )
        }
        migrator.registerMigration("rollingsync v2: removed rows") { db in
            try db.execute(sql: """
                CREATE TABLE rollingsync_removed_rows (
                    seq INTEGER PRIMARY KEY,
                    table_name TEXT NOT NULL,
                    row_key,
                    row_values TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    removed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
                """)
        }
        migrator.registerMigration("rollingsync v3: schema evolution") { db in
            try db.execute(sql: """
                ALTER TABLE rollingsync_tables ADD COLUMN columns TEXT;
                ALTER TABLE rollingsync_tables ADD COLUMN key_type TEXT;
                ALTER TABLE rollingsync_state ADD COLUMN schema_version INTEGER NOT NULL DEFAULT -1;
                CREATE TABLE rollingsync_unsynced_tables (name TEXT PRIMARY KEY COLLATE NOCASE) WITHOUT ROWID;
                CREATE TABLE rollingsync_dropped_columns (
                    table_id INTEGER NOT NULL,
                    column_name TEXT NOT NULL,
                    PRIMARY KEY (table_id, column_name)) WITHOUT ROWID;
                """)
        }
        // The binding to a remote document (``LocalSyncState``), once a migrator of its own: the
        // identifiers stay, so databases written before keep their applied migrations.
        migrator.registerMigration("rollingsync_registration") { db in
            try db.execute(
                sql: """
                    CREATE TABLE rollingsync_registration (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        document_id TEXT NOT NULL,
                        remote_client_id TEXT NOT NULL,
                        integrity_key TEXT,
                        registered INTEGER NOT NULL DEFAULT 0,
                        recent_sync_markers TEXT);
                    CREATE TABLE rollingsync_outgoing (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        file_name TEXT NOT NULL,
                        set_id TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        change_count INTEGER NOT NULL,
                        minimum_clock INTEGER NOT NULL,
                        maximum_clock INTEGER NOT NULL,
                        byte_count INTEGER NOT NULL,
                        last_sequence INTEGER NOT NULL);
                    """
            )
        }
        migrator.registerMigration("rollingsync_registration own sets") { db in
            try db.execute(sql: "ALTER TABLE rollingsync_registration ADD COLUMN needs_own_sets INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("rollingsync v4: row identities") { db in
            try db.execute(sql: """
                CREATE TABLE rollingsync_identities (
                    rollingsync_table INTEGER NOT NULL,
                    rollingsync_local INTEGER NOT NULL,
                    rollingsync_global TEXT NOT NULL,
                    rollingsync_status INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (rollingsync_table, rollingsync_local)) WITHOUT ROWID;
                CREATE UNIQUE INDEX rollingsync_identities_global ON rollingsync_identities (rollingsync_table, rollingsync_global);
                """)
        }
        // Log entries written before (and by triggers not yet reinstalled, see SchemaRefresh) have
        // no rowid: the push reads their rows by key, as it always did.
        migrator.registerMigration("rollingsync v5: logged rowids") { db in
            try db.execute(sql: "ALTER TABLE rollingsync_changes ADD COLUMN row_id INTEGER")
        }
        // Cell clocks name their writer by number, not by its 36-character id: about 36 bytes less
        // per record (Docs/Storage.md). This database's own id is numbered first, so its records,
        // the most numerous on a pushing client, store the writer in no byte at all (SQLite keeps
        // the integer 1 in the record header). (A database adopted from a whole store keeps the
        // uploader's numbers: its own records then take one byte more.)
        migrator.registerMigration("rollingsync v6: writer numbers") { db in
            try db.execute(sql: """
                CREATE TABLE rollingsync_writers (
                    number INTEGER PRIMARY KEY,
                    database_id TEXT NOT NULL UNIQUE);
                INSERT INTO rollingsync_writers (database_id) SELECT client_id FROM rollingsync_state;
                INSERT OR IGNORE INTO rollingsync_writers (database_id) SELECT DISTINCT client_id FROM rollingsync_cell_clocks;
                CREATE TABLE rollingsync_numbered_cell_clocks (
                    table_id INTEGER NOT NULL,
                    row_key NOT NULL,
                    column_name TEXT NOT NULL,
                    clock INTEGER NOT NULL,
                    writer INTEGER NOT NULL,
                    PRIMARY KEY (table_id, row_key, column_name)) WITHOUT ROWID;
                INSERT INTO rollingsync_numbered_cell_clocks (table_id, row_key, column_name, clock, writer)
                    SELECT c.table_id, c.row_key, c.column_name, c.clock, w.number
                    FROM rollingsync_cell_clocks AS c JOIN rollingsync_writers AS w ON w.database_id = c.client_id;
                DROP TABLE rollingsync_cell_clocks;
                """)
            // A modern rename checks every view and trigger of the schema, and fails on an app's
            // stale one (naming a table dropped since), which SQLite otherwise tolerates.
            try db.execute(sql: "PRAGMA legacy_alter_table = ON")
            defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
            try db.execute(sql: "ALTER TABLE rollingsync_numbered_cell_clocks RENAME TO rollingsync_cell_clocks")
        }
        // Update entries name their changed columns in `column_set` (CaptureTriggers, ChangeLog.stamp);
        // the new triggers replace the old ones at the next schema check, which this change of
        // the schema brings about. Entries written before name one column each, as stamped ones do.
        migrator.registerMigration("rollingsync v7: column sets") { db in
            try db.execute(sql: "ALTER TABLE rollingsync_changes ADD COLUMN column_set INTEGER")
        }
        // What a first registration leaves to the next sync (``LocalSyncState``): the clock of a
        // join, until its whole-store install; a whole store to upload, after a creation from data.
        migrator.registerMigration("rollingsync v8: first registration") { db in
            try db.execute(sql: """
                ALTER TABLE rollingsync_registration ADD COLUMN joined_at_clock INTEGER;
                ALTER TABLE rollingsync_registration ADD COLUMN uploads_whole_store INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("rollingsync v9: publishing again") { db in
            try db.execute(sql: "ALTER TABLE rollingsync_changes ADD COLUMN republished INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }
}
