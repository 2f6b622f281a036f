import GRDB
import GRDBSQLite

extension StatementArguments {
    /// Arguments from values, through GRDB's initializer for existentials: its generic initializer
    /// reads each value through a key path, which dominated the cost of applying.
    init(values: [DatabaseValue]) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }
}

extension Statement {
    /// Executes the statement with `values` bound to its parameters in order, without building
    /// `StatementArguments` (boxing each value costs more than the write of a short row), and
    /// still through GRDB's `execute()`, so that transaction observers (an app's
    /// `ValueObservation`) see the write as any other.
    ///
    /// The statement must have exactly `values.count` parameters, none named, and its last
    /// execution must not have failed (GRDB cannot reset such a statement: prepare a new one).
    func execute(binding values: [DatabaseValue]) throws {
        try bind(values)
        try execute()
    }

    /// The values of the first row the query returns with `values` bound to its parameters in
    /// order (`nil` when it returns none), read without building GRDB rows or cursors, which cost
    /// more than the lookup itself. The statement is reset afterwards, even when the step failed.
    /// Only for queries: the step bypasses GRDB, which would tell its observers of a write.
    /// - Throws: a `DatabaseError` when binding or the step fails.
    func fetchFirstRow(binding values: [DatabaseValue]) throws -> [DatabaseValue]? {
        try bind(values)
        defer { sqlite3_reset(sqliteStatement) }
        switch sqlite3_step(sqliteStatement) {
        case SQLITE_ROW:
            return (0..<sqlite3_column_count(sqliteStatement)).map { DatabaseValue(sqliteStatement: sqliteStatement, index: $0) }
        case SQLITE_DONE:
            return nil
        case let code:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))), sql: sql)
        }
    }

    /// Resets the statement (GRDB's reset, which the last execution must not have failed),
    /// clears its bindings and binds `values` to its parameters in order, marking them valid for
    /// GRDB's `execute()`.
    private func bind(_ values: [DatabaseValue]) throws {
        setUncheckedArguments(StatementArguments())
        for (index, value) in zip(CInt(1)..., values) {
            let code = value.bind(to: sqliteStatement, at: index)
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind parameter \(index)", sql: sql)
            }
        }
    }
}
