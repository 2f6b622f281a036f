import Foundation
import GRDB

/// A row that a data rule removed (see Docs/Conflicts.md): a child of a row another client
/// deleted, where the schema or the rule says the child goes too, or the loser of a collision on a
/// unique constraint. Its last values are kept in the table `rollingsync_removed_rows` of the
/// database where the rule ran, so the application can show them or put them back (as new rows);
/// RollingSync never deletes them. Read them with ``LocalStore/removedRows()``.
public struct RemovedRow: Sendable, Equatable {
    /// The table the row was in.
    public var table: String
    /// The row's key (NULL for a row of a table that is not synced, identified only by its rowid).
    public var key: DatabaseValue
    /// Every column's last value, as a JSON object: numbers and text as themselves, NULL as `null`,
    /// a blob as `{"base64": "…"}`.
    public var valuesJSON: String
    /// Why the row was removed, in words.
    public var reason: String
    /// When, as an ISO 8601 UTC date.
    public var removedAt: String

    /// Saves the row's values and deletes it; `false` if there is no such row.
    static func remove(table: String, identity: String, id: DatabaseValue, key: DatabaseValue, reason: String, in db: Database) throws -> Bool {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM main.\(table.sqlIdentifier) WHERE \(identity) = ?", arguments: [id]) else {
            return false
        }
        try save(table: table, key: key, row: row, reason: reason, in: db)
        try db.execute(sql: "DELETE FROM main.\(table.sqlIdentifier) WHERE \(identity) = ?", arguments: [id])
        return true
    }

    /// Saves a row's values (a row being removed, or an incoming row that is not written).
    static func save(table: String, key: DatabaseValue, row: Row, reason: String, in db: Database) throws {
        var object: [String: Any] = [:]
        for (column, value) in row {
            object[column] = jsonValue(value)
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        try db.execute(
            sql: "INSERT INTO rollingsync_removed_rows (table_name, row_key, row_values, reason) VALUES (?, ?, ?, ?)",
            arguments: [table, key, json, reason]
        )
    }

    private static func jsonValue(_ value: DatabaseValue) -> Any {
        switch value.storage {
        case .null: return NSNull()
        case .int64(let number): return number
        case .double(let number): return number.isFinite ? number : String(describing: number)
        case .string(let text): return text
        case .blob(let data): return ["base64": data.base64EncodedString()]
        }
    }
}

extension LocalStore {
    /// The rows data rules removed from this database, oldest first (see ``RemovedRow``).
    public func removedRows() throws -> [RemovedRow] {
        try writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT table_name, row_key, row_values, reason, removed_at FROM rollingsync_removed_rows ORDER BY seq"
            ).map { row in
                RemovedRow(table: row["table_name"], key: row["row_key"], valuesJSON: row["row_values"], reason: row["reason"], removedAt: row["removed_at"])
            }
        }
    }
}
