import Foundation
import GRDB

/// RollingSync's own tables, created next to the application's tables and versioned with GRDB's
/// `DatabaseMigrator`. Every name starts with ``prefix``; applications must not use that prefix.
///
/// - `rollingsync_state`: one row; this database's client id, the newest hybrid logical clock issued
///   or seen (see ``ChangeLogClock``), and the `applying` flag the capture triggers check.
/// - `rollingsync_tables`: the registered synced tables and their key columns.
/// - `rollingsync_changes`: the change log the triggers append to (one row per inserted row, per
///   changed column, per deleted row; no values, they are read from the table when pushing), in
///   `seq` order, with the wall-clock reading of each change and its hybrid logical clock once
///   stamped (see ``ChangeLogClock``).
/// - `rollingsync_cell_clocks`: clock and client of the last pushed or applied update per cell,
///   for last-writer-wins against late remote changes.
/// - `rollingsync_tombstones`: deleted row keys, so late changes to a deleted row are ignored.
/// - `rollingsync_applied_sets`: identifiers of the change sets already applied (or pushed).
enum LocalStoreSchema {
    static let prefix = "rollingsync_"

    /// Change-log operation codes (also the record kinds of ``RowChange/Kind``).
    static let insertOperation = Int(RowChange.Kind.insert.rawValue)
    static let updateOperation = Int(RowChange.Kind.update.rawValue)
    static let deleteOperation = Int(RowChange.Kind.delete.rawValue)

    /// The SQL expression of the wall clock as a hybrid-logical-clock candidate: milliseconds since
    /// 1970 shifted left 16 bits. SQLite 3.40 has no `unixepoch('subsec')`, so milliseconds come from
    /// `julianday('now')`.
    static let wallClockExpression = "(CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) << 16)"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
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
                    wall INTEGER NOT NULL,
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
                    set_id TEXT PRIMARY KEY NOT NULL,
                    client_id TEXT NOT NULL,
                    change_count INTEGER NOT NULL,
                    maximum_clock INTEGER NOT NULL,
                    recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) WITHOUT ROWID;
                """)
            try db.execute(
                sql: "INSERT INTO rollingsync_state (id, client_id, clock) VALUES (1, ?, 0)",
                arguments: [UUID().uuidString]
            )
        }
        return migrator
    }
}
