import Foundation
import GRDB

/// Generates and installs the capture triggers of one synced table.
///
/// Each trigger appends one row to `rollingsync_changes` (unless capture is suppressed, which
/// happens only inside RollingSync's own transactions, see ``ChangeLog``: checked last in the
/// trigger's `WHEN` clause, which measured cheaper than an `INSERT … SELECT … FROM
/// rollingsync_state`) carrying the raw wall-clock reading (``LocalStoreSchema/wallClockReading``);
/// its position in the log (`seq`) and that reading determine its hybrid logical clock (see
/// ``ChangeLog``). All this happens inside the statement that fired it, so a change and its
/// record commit or roll back together whatever connection or tool wrote it:
/// - `AFTER INSERT`: one row, operation insert.
/// - `AFTER UPDATE OF <columns>` for each group of up to ``columnsPerTrigger`` non-key columns,
///   when the key is unchanged and a value of the group really changed (`IS NOT`; where the
///   column's type lets it hold both an integer and an equal real, also a different storage
///   class): one row for the whole update, its `column_set` naming the changed columns of the group
///   (``ChangeLog/columnSet(group:changed:)``). ``ChangeLog/stamp(in:)`` spells it out as one
///   entry per column before anything reads the log.
/// - `AFTER UPDATE OF <key columns>` when the key itself changes: a delete of the old key and an
///   insert of the new one.
/// - `AFTER DELETE`: one row, operation delete.
/// - Where the key is local (``SyncedTable/keyIsLocal``), the insert trigger first gives the row
///   its global identity, the re-key trigger retires the old one and gives a new one (a re-keyed
///   row is a deleted row and a new one, as for any key), and a further `AFTER DELETE` trigger,
///   which runs whoever deletes, marks the identity deleted (see ``RowIdentity``).
///
/// Each entry names its row by its row key (``TableKey``). In a table whose key may be NULL
/// (``SyncedTable/keyMayBeNull``), rows with a NULL key (or a NULL in a composite key) are not
/// captured: a NULL old or new key records nothing for that side (a key set from NULL to a value
/// is the row's creation, from a value to NULL its deletion).
///
/// Why one update trigger per group of columns, appending one row per update: every trigger an
/// update fires costs SQLite a subprogram run and every appended row a b-tree insert, so a log
/// row per changed cell (one trigger per column, as until 2026-11-27) made an update of two
/// columns cost two of each, and an ORM's update writing the whole row back fired a trigger per
/// column. A trigger over a group compares each column of its group on every update that sets
/// one of them, which costs more the wider the group (SQLite copies each compared old value), so
/// groups are kept to ``columnsPerTrigger`` columns. Measured by SyncCoreBenchmark (100k updates,
/// TEXT key, 4 columns, against the plain updates; in parentheses the per-column triggers they
/// replace, measured the same day): 1.45× for 1 column (1.40×), 1.44× for 2 (1.57×), 1.46× for a
/// whole row written back with one column changed (1.55×). Columns whose type converts integers
/// and reals are compared by `IS NOT` alone: `typeof` is a function call, and with it on all four
/// columns this trigger took 13 % longer (100k 1-column updates through SQLite's C API: 0.477 s
/// against 0.422 s).
///
/// Trigger names are `rollingsync_<table id>_…`, so they can be found and replaced when the table
/// is registered again after a schema change.
struct CaptureTriggers {
    let table: SyncedTable

    /// The most columns one update trigger compares (see above); the group of a column is its
    /// position in ``SyncedTable/columns`` divided by it. Fixed by the log's format: an entry's
    /// `column_set` names positions in its group (``ChangeLog/columnSet(group:changed:)``).
    static let columnsPerTrigger = ChangeLog.columnsPerGroup

    /// The entry of `operation` for `row` (`new` or `old`), with the SQL expression `columns` for
    /// an update; an entry for the `new` row records its rowid where the table has one besides
    /// its key.
    private func record(operation: Int, row: String, columns: String? = nil) -> String {
        ChangeLog.triggerEntry(
            operation: operation, tableID: table.id, key: table.key.value(of: row), columns: columns,
            rowid: row == "new" ? table.rowidName.map { "new.\($0)" } : nil,
            onlyWhen: table.keyMayBeNull ? table.key.isPresent(in: row) : nil
        )
    }

    /// The SQL condition that an update changed `column`: its value differs (`IS NOT`, text byte
    /// for byte: `COLLATE BINARY`, since the column's own collation, `NOCASE` say, holds `'apple'`
    /// and `'APPLE'` equal), or, where its type lets it hold an integer and an equal real
    /// (``SyncedTable/looselyTypedColumns``), its storage class does (`1` and `1.0` are equal to
    /// `IS NOT`).
    private func changed(_ column: String) -> String {
        let name = column.sqlIdentifier
        return table.looselyTypedColumns.contains(column)
            ? "(old.\(name) IS NOT new.\(name) COLLATE BINARY OR typeof(old.\(name)) <> typeof(new.\(name)))"
            : "old.\(name) IS NOT new.\(name) COLLATE BINARY"
    }

    /// `condition AND` the key of `row` is present, where keys may be NULL.
    private func capturing(_ row: String, _ condition: String) -> String {
        table.keyMayBeNull ? "\(table.key.isPresent(in: row)) AND \(condition)" : condition
    }

    /// Where the key is local, the statement giving the row `row` a global identity (and a line
    /// break); nothing otherwise.
    private func assignIdentity(_ row: String) -> String {
        table.keyIsLocal ? RowIdentity.assignment(tableID: table.id, local: "\(row).\(table.keyColumns[0].sqlIdentifier)") + "\n" : ""
    }

    /// Where the key is local, the statement marking the identity of row `row` deleted (and a
    /// line break); nothing otherwise.
    private func retireIdentity(_ row: String) -> String {
        table.keyIsLocal ? RowIdentity.retirement(tableID: table.id, localID: "= \(row).\(table.keyColumns[0].sqlIdentifier)") + "\n" : ""
    }

    /// The `WHEN` condition that suppresses capture while remote changes are being applied.
    private static let notApplying = ChangeLog.captureIsOn

    /// The `CREATE TRIGGER` statements.
    var statements: [String] {
        let tableName = table.name.sqlIdentifier
        let key = table.key
        let prefix = "rollingsync_\(table.id)_"
        var statements = [
            """
            CREATE TRIGGER \("\(prefix)insert".sqlIdentifier) AFTER INSERT ON \(tableName)
            WHEN \(capturing("new", Self.notApplying)) BEGIN
            \(assignIdentity("new"))\(record(operation: LocalStoreSchema.insertOperation, row: "new"))
            END
            """,
            """
            CREATE TRIGGER \("\(prefix)delete".sqlIdentifier) AFTER DELETE ON \(tableName)
            WHEN \(capturing("old", Self.notApplying)) BEGIN
            \(record(operation: LocalStoreSchema.deleteOperation, row: "old"))
            END
            """,
            """
            CREATE TRIGGER \("\(prefix)rekey".sqlIdentifier) AFTER UPDATE OF \(([key.columnList] + table.rowidAliases.map(\.sqlIdentifier)).joined(separator: ", ")) ON \(tableName)
            WHEN (\(key.differs("old", "new"))) AND \(Self.notApplying) BEGIN
            \(record(operation: LocalStoreSchema.deleteOperation, row: "old"))
            \(retireIdentity("old"))\(assignIdentity("new"))\(record(operation: LocalStoreSchema.insertOperation, row: "new"))
            END
            """,
        ]
        if table.keyIsLocal {
            // Whoever deletes the row (the app, a cascade, RollingSync applying a deletion).
            statements.append("""
                CREATE TRIGGER \("\(prefix)retire".sqlIdentifier) AFTER DELETE ON \(tableName) BEGIN
                \(retireIdentity("old"))
                END
                """)
        }
        for first in stride(from: 0, to: table.columns.count, by: Self.columnsPerTrigger) {
            let group = first / Self.columnsPerTrigger
            let columns = table.columns[first..<min(first + Self.columnsPerTrigger, table.columns.count)]
            let changes = columns.map(changed)
            statements.append("""
                CREATE TRIGGER \("\(prefix)updates_\(group)".sqlIdentifier)
                AFTER UPDATE OF \(columns.map(\.sqlIdentifier).joined(separator: ", ")) ON \(tableName)
                WHEN NOT (\(key.differs("old", "new")))
                    AND (\(changes.joined(separator: " OR ")))
                    AND \(capturing("new", Self.notApplying)) BEGIN
                \(record(operation: LocalStoreSchema.updateOperation, row: "new", columns: ChangeLog.columnSet(group: group, changed: changes)))
                END
                """)
        }
        return statements
    }

    /// Drops the table's existing capture triggers (from any earlier registration) and creates the
    /// current ones.
    func install(in db: Database) throws {
        try Self.drop(tableID: table.id, in: db)
        for statement in statements {
            try db.execute(sql: statement)
        }
    }

    /// Drops every capture trigger of the table with the given id.
    static func drop(tableID: Int64, in db: Database) throws {
        for trigger in try existing(tableID: tableID, in: db) {
            try db.execute(sql: "DROP TRIGGER \(trigger.name.sqlIdentifier)")
        }
    }

    /// Runs `body` with the capture triggers of the table with the given id dropped, then creates
    /// them again from their own stored statements, unchanged, all in the caller's transaction (a
    /// failure rolls back with it). SQLite copies a whole table page by page (`INSERT INTO t
    /// SELECT * FROM other.t`, its transfer optimization) only into a table without triggers.
    static func withTriggersSetAside<Result>(tableID: Int64, in db: Database, _ body: () throws -> Result) throws -> Result {
        let triggers = try existing(tableID: tableID, in: db)
        try drop(tableID: tableID, in: db)
        let result = try body()
        for trigger in triggers {
            try db.execute(sql: trigger.sql)
        }
        return result
    }

    /// The name and `CREATE TRIGGER` statement of every capture trigger of the table with the
    /// given id, in the order they were created.
    private static func existing(tableID: Int64, in db: Database) throws -> [(name: String, sql: String)] {
        try Row.fetchAll(
            db,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE ? ESCAPE '\\' ORDER BY rowid",
            arguments: ["rollingsync\\_\(tableID)\\_%"]
        ).map { ($0["name"], $0["sql"]) }
    }
}
