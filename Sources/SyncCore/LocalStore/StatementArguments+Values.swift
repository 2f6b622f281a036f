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
        // Resets, clears the bindings and marks them valid, so `execute()` keeps the ones below.
        setUncheckedArguments(StatementArguments())
        for (index, value) in zip(CInt(1)..., values) {
            let code = value.bind(to: sqliteStatement, at: index)
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind parameter \(index)", sql: sql)
            }
        }
        try execute()
    }
}
