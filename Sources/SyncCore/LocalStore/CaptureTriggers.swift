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
/// - `AFTER UPDATE OF <column>` for every non-key column, only when the value really changed
///   (`IS NOT`, or a different storage class): one row naming the column.
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
/// Why one update trigger per column: SQLite runs an `AFTER UPDATE OF c` trigger only for
/// statements that set `c`, so an update pays for the columns it sets, not for the table's width.
/// One trigger per table, appending one row per update that names all changed columns, saves the
/// second append of a 2-column update but compares every column on every update. Measured on the
/// SyncCoreBenchmark's 4-column table and updates, driven through Python's `sqlite3` module (so
/// ratios run higher than the benchmark's): 1.68–1.80× the plain updates for 2 columns (these
/// triggers: 1.95×), but 1.75–1.85× for 1 column (these: 1.62×), and the gap grows with the table's
/// width. The benchmark prints capture's floor beside these triggers: one bare append per updated
/// row, 1.27× there.
///
/// Trigger names are `rollingsync_<table id>_…`, so they can be found and replaced when the table
/// is registered again after a schema change.
struct CaptureTriggers {
    let table: SyncedTable

    /// The entry of `operation` for `row` (`new` or `old`), naming `column` for an update; an
    /// entry for the `new` row records its rowid where the table has one besides its key.
    private func record(operation: Int, row: String, column: String?) -> String {
        ChangeLog.triggerEntry(
            operation: operation, tableID: table.id, key: table.key.value(of: row), column: column,
            rowid: row == "new" ? table.rowidName.map { "new.\($0)" } : nil,
            onlyWhen: table.keyMayBeNull ? table.key.isPresent(in: row) : nil
        )
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
        table.keyIsLocal ? RowIdentity.retirement(tableID: table.id, local: "\(row).\(table.keyColumns[0].sqlIdentifier)") + "\n" : ""
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
            \(assignIdentity("new"))\(record(operation: LocalStoreSchema.insertOperation, row: "new", column: nil))
            END
            """,
            """
            CREATE TRIGGER \("\(prefix)delete".sqlIdentifier) AFTER DELETE ON \(tableName)
            WHEN \(capturing("old", Self.notApplying)) BEGIN
            \(record(operation: LocalStoreSchema.deleteOperation, row: "old", column: nil))
            END
            """,
            """
            CREATE TRIGGER \("\(prefix)rekey".sqlIdentifier) AFTER UPDATE OF \(([key.columnList] + table.rowidAliases.map(\.sqlIdentifier)).joined(separator: ", ")) ON \(tableName)
            WHEN (\(key.differs("old", "new"))) AND \(Self.notApplying) BEGIN
            \(record(operation: LocalStoreSchema.deleteOperation, row: "old", column: nil))
            \(retireIdentity("old"))\(assignIdentity("new"))\(record(operation: LocalStoreSchema.insertOperation, row: "new", column: nil))
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
        for (index, column) in table.columns.enumerated() {
            let name = column.sqlIdentifier
            statements.append("""
                CREATE TRIGGER \("\(prefix)update_\(index)".sqlIdentifier) AFTER UPDATE OF \(name) ON \(tableName)
                WHEN NOT (\(key.differs("old", "new")))
                    AND (old.\(name) IS NOT new.\(name) OR typeof(old.\(name)) <> typeof(new.\(name)))
                    AND \(capturing("new", Self.notApplying)) BEGIN
                \(record(operation: LocalStoreSchema.updateOperation, row: "new", column: column))
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
