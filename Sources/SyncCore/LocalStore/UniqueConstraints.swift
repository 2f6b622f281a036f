import GRDB

/// The unique constraints (other than the primary key) of the synced tables, read once per table,
/// and the rows a write would collide with. The uniqueness rule (Docs/Conflicts.md) keeps, of the
/// colliding rows, the one whose key sorts first in SQLite's order, the same on every client.
struct UniqueConstraints {
    private let db: Database
    /// Column lists of each table's unique constraints.
    private var constraints: [String: [[String]]] = [:]

    init(db: Database) {
        self.db = db
    }

    /// The keys of the other rows that hold the same values as `row` (column → value; the row's
    /// other columns are irrelevant) in all the columns of one of the table's unique constraints.
    /// NULLs never collide; partial and expression indexes are not considered.
    mutating func collidingKeys(with row: [String: DatabaseValue], key: DatabaseValue, table: SyncedTable) throws -> [DatabaseValue] {
        if constraints[table.name] == nil {
            var lists: [[String]] = []
            let indexes = try String.fetchAll(
                db,
                sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND origin <> 'pk' AND partial = 0",
                arguments: [table.name]
            )
            for index in indexes {
                let columns = try String?.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [index])
                if columns.allSatisfy({ $0 != nil }) { lists.append(columns.compactMap { $0 }) }
            }
            constraints[table.name] = lists
        }
        var keys: [DatabaseValue] = []
        for columns in constraints[table.name] ?? [] {
            let values = columns.map { row[$0] ?? .null }
            guard !values.contains(.null) else { continue }
            let condition = columns.map { "\($0.sqlIdentifier) = ?" }.joined(separator: " AND ")
            let found = try DatabaseValue.fetchAll(
                db,
                sql: "SELECT \(table.keyColumn.sqlIdentifier) FROM main.\(table.name.sqlIdentifier) WHERE \(condition) AND \(table.keyColumn.sqlIdentifier) <> ?",
                arguments: StatementArguments((values + [key]).map { $0 as (any DatabaseValueConvertible)? })
            )
            for other in found where !keys.contains(other) { keys.append(other) }
        }
        return keys
    }

    /// Of `key` and the keys it collides with, the one every client keeps: the first in SQLite's order.
    func winner(among key: DatabaseValue, _ colliding: [DatabaseValue]) throws -> DatabaseValue {
        var winner = key
        for other in colliding where try Bool.fetchOne(db, sql: "SELECT ? < ?", arguments: [other, winner]) ?? false {
            winner = other
        }
        return winner
    }
}
