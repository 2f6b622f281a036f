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

    /// Saves the values of the row that `condition` selects (its placeholders bound to
    /// `arguments`) and deletes it; `false` if there is no such row.
    static func remove(
        table: String, matching condition: String, _ arguments: [DatabaseValue], key: DatabaseValue, reason: String, in db: Database
    ) throws -> Bool {
        let arguments = StatementArguments(values: arguments)
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM main.\(table.sqlIdentifier) WHERE \(condition)", arguments: arguments) else {
            return false
        }
        try save(table: table, key: key, row: row, reason: reason, in: db)
        try db.execute(sql: "DELETE FROM main.\(table.sqlIdentifier) WHERE \(condition)", arguments: arguments)
        return true
    }

    /// Saves the values of row `key` of the synced `table` and deletes it; `false` if there is no
    /// such row.
    static func remove(_ table: SyncedTable, key: DatabaseValue, reason: String, in db: Database) throws -> Bool {
        try remove(table: table.name, matching: table.key.matches(), try table.key.components(of: key), key: key, reason: reason, in: db)
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

extension LocalStore {
    /// The newest entry of `rollingsync_removed_rows` (0 when there is none): entries after it
    /// were made by what runs next.
    func removedRowsWatermark() throws -> Int64 {
        try writer.read { db in try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM rollingsync_removed_rows") ?? 0 }
    }

    /// For a database change sets were replayed into (a point-in-time restore): puts back the rows
    /// the data rules removed during the replay, after `watermark`, that no change set deleted (no
    /// tombstone) and that are not there, from their saved values, parents before children.
    ///
    /// Such a removal is the replay's own decision, made because it applies sets in clock order,
    /// which no client may have done: a rule that removed a row on a client pushed the deletion,
    /// and the replay applied that deletion too. A row that still collides on a unique constraint
    /// or lacks its parent stays removed (and in `rollingsync_removed_rows`).
    /// - Returns: how many rows were put back.
    @discardableResult
    func reinstateRowsRemovedByRules(after watermark: Int64) throws -> Int {
        var reinstated = 0
        try withForeignKeysOff { db in
            try db.inTransaction {
                let tables = Dictionary(uniqueKeysWithValues: try Self.syncedTables(in: db).map { ($0.name, $0) })
                var candidates: [(table: SyncedTable, key: DatabaseValue, values: [String: DatabaseValue])] = []
                var seen = Set<String>()
                for row in try Row.fetchAll(
                    db, sql: "SELECT table_name, row_key, row_values FROM rollingsync_removed_rows WHERE seq > ? ORDER BY seq DESC", arguments: [watermark]
                ) {
                    guard let table = tables[row["table_name"]] else { continue }
                    let key: DatabaseValue = row["row_key"]
                    guard seen.insert("\(table.name)\u{0}\(key)").inserted else { continue }
                    let deleted = try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_tombstones WHERE table_id = ? AND row_key = ?)", arguments: [table.id, key]
                    ) ?? true
                    guard !deleted, let values = Self.decodeRemovedValues(row["row_values"]) else { continue }
                    candidates.append((table, key, values))
                }
                // No trigger guard here: the removal this undoes ran with capture on, so the app's
                // triggers acted on it (a count decremented); they act on the row put back too.
                try ChangeLog.withCaptureSuppressed(db) {
                    var progress = true
                    // Parents first: a child whose parent is not back yet waits for the next round.
                    while progress, !candidates.isEmpty {
                        progress = false
                        var waiting: [(table: SyncedTable, key: DatabaseValue, values: [String: DatabaseValue])] = []
                        for candidate in candidates {
                            if try Self.reinstate(candidate.values, key: candidate.key, into: candidate.table, in: db) {
                                reinstated += 1
                                progress = true
                            } else {
                                waiting.append(candidate)
                            }
                        }
                        candidates = waiting
                    }
                }
                // Rows put back at their ids take up their identities again (new ones without a key).
                for table in tables.values { try RowIdentity.reconcile(table, in: db) }
                return .commit
            }
        }
        return reinstated
    }

    /// Inserts a removed row back if it is absent, breaks no constraint and has its parents.
    private static func reinstate(_ values: [String: DatabaseValue], key: DatabaseValue, into table: SyncedTable, in db: Database) throws -> Bool {
        guard try Row.fetchOne(
            db, sql: "SELECT 1 FROM main.\(table.name.sqlIdentifier) WHERE \(table.key.matches())",
            arguments: StatementArguments(values: try table.key.components(of: key))
        ) == nil else {
            return false
        }
        let columns = values.keys.sorted()
        let savepoint = "rollingsync_reinstate"
        try db.execute(sql: "SAVEPOINT \(savepoint)")
        do {
            try db.execute(
                sql: "INSERT INTO main.\(table.name.sqlIdentifier) (\(columns.map(\.sqlIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(columns.map { values[$0] })
            )
            let broken = try Row.fetchAll(db, sql: "SELECT 1 FROM pragma_foreign_key_check(?)", arguments: [table.name])
            guard broken.isEmpty else {
                try db.execute(sql: "ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
                return false
            }
            try db.execute(sql: "RELEASE \(savepoint)")
            return true
        } catch let error as DatabaseError where [.SQLITE_CONSTRAINT, .SQLITE_MISMATCH].contains(error.resultCode) {
            // A constraint refuses the row, or its saved key is no value of the table (a row of
            // another client named by its global identity, saved by an earlier release).
            try db.execute(sql: "ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
            return false
        }
    }

    /// The values ``RemovedRow/save(table:key:row:reason:in:)`` wrote, back as database values;
    /// `nil` if the text is not such an object.
    static func decodeRemovedValues(_ json: String) -> [String: DatabaseValue]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        var values: [String: DatabaseValue] = [:]
        for (column, value) in object {
            switch value {
            case is NSNull: values[column] = .null
            case let text as String: values[column] = text.databaseValue
            case let blob as [String: Any]:
                guard let base64 = blob["base64"] as? String, let data = Data(base64Encoded: base64) else { return nil }
                values[column] = data.databaseValue
            case let number as NSNumber:
                let type = String(cString: number.objCType)
                values[column] = type == "d" || type == "f" ? number.doubleValue.databaseValue : number.int64Value.databaseValue
            default: return nil
            }
        }
        return values
    }
}
