import Foundation
import GRDB

/// What a schema check found and did (see ``LocalStore/refreshSchema()``). Later releases may add
/// kinds: a `switch` needs an `@unknown default:`.
@nonexhaustive
public enum SchemaChange: Sendable, Equatable {
    /// A column was added to a synced table: it is captured from now on, and the rows whose value
    /// in it differs from the column's default (written since the column was added) were logged as
    /// updates of it, so they are pushed.
    case columnAdded(table: String, column: String, publishedRows: Int)
    /// A column was dropped from a synced table: it is no longer captured or sent, and values for it
    /// that other clients still send are ignored with a warning.
    case columnDropped(table: String, column: String)
    /// A synced table lost its capture triggers (it was rebuilt, for example by the 12-step
    /// `ALTER TABLE` procedure outside ``LocalStore/changeSchema(_:)``); they were generated again.
    /// Writes made between the rebuild and now were not captured. (Reported when its insert,
    /// delete or every update trigger was missing; one update trigger of several dropped by hand
    /// is replaced without a report.)
    case triggersRestored(table: String)
    /// A table was added to synchronization and its existing rows logged as inserts (see
    /// ``LocalStore/addSyncedTable(_:)``).
    case tableAdded(table: String, publishedRows: Int)
}

/// Compares each synced table's columns with those its capture triggers were generated for, and
/// follows the differences: new triggers for added columns (publishing the values written into
/// them before the triggers existed), a record of dropped columns, triggers restored where they
/// are missing, and triggers an older release wrote replaced by the current ones (not reported:
/// they captured every write). A changed key column is refused.
///
/// Unless forced, the comparison runs only when SQLite's `PRAGMA schema_version` (bumped by every
/// schema change of the database) differs from the one recorded by the last check: a sync that
/// finds no schema change pays two one-row queries.
///
/// No write to an added column can escape: `ALTER TABLE … ADD COLUMN` gives every existing row the
/// column's default, rows inserted afterwards are captured whole by the insert trigger, and an
/// update of the new column that happened before its trigger existed left a value different from
/// the default, which the check logs. The one write this cannot see is an update back to exactly
/// the default, which leaves the row as every other client has it anyway.
enum SchemaRefresh {
    /// Runs the check in the current transaction.
    /// - Parameter force: compare even if the schema version did not change (after
    ///   ``LocalStore/changeSchema(_:)``, which removed every table's triggers on purpose: their
    ///   restoration is then not reported).
    /// - Throws: ``LocalStoreError`` when a synced table is gone, unsuitable now, or its key changed.
    static func run(in db: Database, force: Bool) throws -> [SchemaChange] {
        let version = try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        let checked = try Int64.fetchOne(db, sql: "SELECT schema_version FROM rollingsync_state") ?? -1
        if !force && version == checked { return [] }
        var changes: [SchemaChange] = []
        let tables = try LocalStore.syncedTables(in: db)
        for row in try Row.fetchAll(db, sql: "SELECT id, name, key_column, key_type, columns FROM rollingsync_tables ORDER BY name") {
            changes += try refresh(row, as: tables.first { $0.id == row["id"] }, in: db).filter { change in
                if case .triggersRestored = change { !force } else { true }
            }
        }
        try recordSchemaVersion(in: db)
        return changes
    }

    /// Checks one registered table (a row of `rollingsync_tables`; `table` its current shape when
    /// known already); installs triggers where its columns or triggers changed.
    static func refresh(_ registration: Row, as table: SyncedTable? = nil, in db: Database) throws -> [SchemaChange] {
        let id: Int64 = registration["id"]
        let name: String = registration["name"]
        let recordedKey: String = registration["key_column"]
        let recordedColumns: String? = registration["columns"]
        let table = try table ?? LocalStore.syncedTable(name, in: db)
        let (keyColumns, columns) = (table.keyColumns, table.columns)
        let key = recorded(keyColumns)
        guard key == recordedKey else {
            throw LocalStoreError(.keyChanged, table: name, detail: "registered with key \(recordedKey), now \(key)")
        }
        let keyType = try declaredTypes(of: keyColumns, in: name, db: db)
        if let recordedType: String = registration["key_type"], recordedType != keyType {
            throw LocalStoreError(.keyChanged, table: name, detail: "key \(key) was declared \(recordedType), now \(keyType)")
        }
        let known = try recordedColumns.map(decode) ?? triggerColumns(tableID: id, in: db)
        // The pending update entries name positions in the recorded columns: spelled out first.
        if known != columns { try ChangeLog.stamp(in: db) }
        if registration["key_type"] as String? == nil { try record(table, in: db) }
        // Triggers written by an older release (their text differs) are replaced too, silently:
        // they captured every write until now.
        let installed = try Row.fetchAll(
            db,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE ? ESCAPE '\\'",
            arguments: ["rollingsync\\_\(id)\\_%"]
        )
        let expected = CaptureTriggers(table: table).statements
        guard known != columns || Set(installed.map { $0["sql"] as String }) != Set(expected) else { return [] }
        // A rebuilt table lost them all. The insert and delete triggers keep their names from
        // release to release; update triggers were named `…_update_<n>`, one a column, now `…_updates_<n>`, one a group.
        let installedNames = Set(installed.map { $0["name"] as String })
        let lost = ["insert", "delete"].contains { !installedNames.contains("rollingsync_\(id)_\($0)") }
            || (!columns.isEmpty && !installedNames.contains { $0.hasPrefix("rollingsync_\(id)_update") })
        try RowIdentity.assignEveryRow(of: table, in: db)
        try RowIdentity.keepRowids(of: table, in: db)
        try CaptureTriggers(table: table).install(in: db)
        try record(table, in: db)
        var changes: [SchemaChange] = []
        let added = columns.filter { !known.contains($0) }
        let dropped = known.filter { !columns.contains($0) }
        for column in added {
            try db.execute(sql: "DELETE FROM rollingsync_dropped_columns WHERE table_id = ? AND column_name = ?", arguments: [id, column])
            changes.append(.columnAdded(table: name, column: column, publishedRows: try publishWritten(column, of: table, in: db)))
        }
        for column in dropped {
            try db.execute(sql: "INSERT OR IGNORE INTO rollingsync_dropped_columns (table_id, column_name) VALUES (?, ?)", arguments: [id, column])
            try ChangeLog.dropEdits(ofColumn: column, tableID: id, in: db)
            changes.append(.columnDropped(table: name, column: column))
        }
        if added.isEmpty && dropped.isEmpty && lost {
            changes.append(.triggersRestored(table: name))
        }
        return changes
    }

    /// Records the current schema version as checked.
    static func recordSchemaVersion(in db: Database) throws {
        let version = try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "UPDATE rollingsync_state SET schema_version = ?", arguments: [version])
    }

    /// Records the columns the table's triggers now capture, and its key's declared type.
    static func record(_ table: SyncedTable, in db: Database) throws {
        let json = String(decoding: try JSONEncoder().encode(table.columns), as: UTF8.self)
        try db.execute(
            sql: "UPDATE rollingsync_tables SET columns = ?, key_type = ? WHERE id = ?",
            arguments: [json, try declaredTypes(of: table.keyColumns, in: table.name, db: db), table.id]
        )
    }

    /// How `rollingsync_tables` records a key's columns (`key_column`) or their declared types
    /// (`key_type`): one column's as it is, a composite key's as a JSON array.
    static func recorded(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return String(decoding: (try? JSONEncoder().encode(names)) ?? Data(), as: UTF8.self)
    }

    /// The key columns' declared types, upper-cased (empty when none), as recorded.
    private static func declaredTypes(of columns: [String], in table: String, db: Database) throws -> String {
        recorded(try columns.map { column in
            (try String.fetchOne(db, sql: "SELECT type FROM pragma_table_xinfo(?) WHERE name = ?", arguments: [table, column]) ?? "").uppercased()
        })
    }

    private static func decode(_ json: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }

    /// The columns the existing update triggers capture (for registrations older than the recorded
    /// column list): read from each trigger's `AFTER UPDATE OF "column"`.
    private static func triggerColumns(tableID: Int64, in db: Database) throws -> [String] {
        let definitions = try String.fetchAll(
            db,
            sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE ? ESCAPE '\\' ORDER BY name",
            arguments: ["rollingsync\\_\(tableID)\\_update\\_%"]
        )
        return definitions.compactMap { sql in
            guard let start = sql.range(of: "AFTER UPDATE OF \""), let end = sql.range(of: "\" ON ", range: start.upperBound..<sql.endIndex) else {
                return nil
            }
            return String(sql[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "\"\"", with: "\"")
        }
    }

    /// Logs an update of `column` for every row whose value differs from the column's default.
    /// - Returns: the number of rows logged.
    private static func publishWritten(_ column: String, of table: SyncedTable, in db: Database) throws -> Int {
        let defaultValue = try String.fetchOne(
            db, sql: "SELECT dflt_value FROM pragma_table_xinfo(?) WHERE name = ?", arguments: [table.name, column]
        )
        return try ChangeLog.recordColumn(column, of: table, differingFrom: defaultValue, in: db)
    }
}
