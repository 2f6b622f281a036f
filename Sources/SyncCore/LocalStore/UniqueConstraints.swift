import GRDB

/// The unique constraints (other than the primary key) of the synced tables, read once per table,
/// and the rows a write would collide with. The uniqueness rule (Docs/Conflicts.md) keeps, of the
/// colliding rows, the one whose key sorts first in SQLite's order, the same on every client.
/// ``write(key:table:attempt:collisionRow:removeLoser:)`` runs a write under that rule, for the
/// apply and the whole-store re-base alike. A class: the writers call it with closures that
/// change their own state.
final class UniqueConstraints {
    private let db: Database
    /// Column lists of each table's unique constraints.
    private var constraints: [String: [[String]]] = [:]

    init(db: Database) {
        self.db = db
    }

    /// The keys of the other rows that hold the same values as `row` (column → value; the row's
    /// other columns are irrelevant) in all the columns of one of the table's unique constraints.
    /// NULLs never collide; partial and expression indexes are not considered.
    func collidingKeys(with row: [String: DatabaseValue], key: DatabaseValue, table: SyncedTable) throws -> [DatabaseValue] {
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
                sql: "SELECT \(table.key.value()) FROM main.\(table.name.sqlIdentifier) WHERE \(condition) AND \(table.key.value()) <> ?",
                arguments: StatementArguments(values: values + [key])
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

    /// What became of a write run under the uniqueness rule.
    enum WriteOutcome {
        /// The row was written (after the rows it collided with were removed, if any).
        case written
        /// The row collided with `winner`, which stays: the row must not be written (or must go).
        case lost(to: DatabaseValue, row: [String: DatabaseValue])
        /// Another constraint refused the row (`reason`, SQLite's message).
        case rejected(reason: String, row: [String: DatabaseValue])
    }

    /// Runs `attempt`, the write of row `key`, under the uniqueness rule.
    ///
    /// When a constraint fails, `collisionRow` gives the row's values as the write would leave them
    /// (column → value). A collision on a unique constraint other than the key keeps the row with
    /// the smallest key among the colliding ones: when that is this row, `removeLoser` removes each
    /// other one and the write is attempted again (once: a second collision is a rejection);
    /// otherwise the outcome is `lost`. Any other constraint failure is `rejected`.
    /// - Throws: the errors of the closures, and any error of `attempt` that is not a constraint
    ///   failure.
    func write(
        key: DatabaseValue,
        table: SyncedTable,
        attempt: () throws -> Void,
        collisionRow: () throws -> [String: DatabaseValue],
        removeLoser: (_ loser: DatabaseValue) throws -> Void
    ) throws -> WriteOutcome {
        var settledCollision = false
        while true {
            do {
                try attempt()
                return .written
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                let row = try collisionRow()
                if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE, !settledCollision {
                    let colliding = try collidingKeys(with: row, key: key, table: table)
                    if !colliding.isEmpty {
                        settledCollision = true
                        let winner = try winner(among: key, colliding)
                        guard winner == key else { return .lost(to: winner, row: row) }
                        for loser in colliding { try removeLoser(loser) }
                        continue
                    }
                }
                return .rejected(reason: error.message ?? "\(error)", row: row)
            }
        }
    }
}
