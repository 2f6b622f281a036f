/// Errors raised by ``LocalStore``. Every error leaves the database as it was before the call.
public struct LocalStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Reason: Sendable, Equatable {
        /// The table does not exist in the database.
        case noSuchTable
        /// The table cannot be synchronized; the associated text says why and how to fix it.
        case unsupportedTable(String)
        /// A change set refers to a table this database has not registered for sync.
        case unregisteredTable
        /// A change set refers to a column the local table does not have (the sending client has a
        /// newer schema); migrate the local schema, re-register the table and apply again.
        case unknownColumn(String)
        /// The table's key column was renamed, dropped or changed type since it was registered; a
        /// synced table's key must never change (the associated text says what changed).
        case keyChanged(String)
        /// Data written with a newer schema: a whole store or change set names this column (or, when
        /// `nil`, the table itself) and the local schema lacks it; migrate the application first.
        case upgradeRequired(column: String?)
        /// A schema change (``LocalStore/changeSchema(_:)``) left rows of this table referring to
        /// rows that do not exist; it was rolled back.
        case referencesBroken
    }

    /// The kind of failure.
    public var reason: Reason
    /// The table concerned.
    public var table: String

    /// Creates an error.
    public init(_ reason: Reason, table: String) {
        self.reason = reason
        self.table = table
    }

    /// A sentence naming the problem, for logs and error messages (never contains row values).
    public var description: String {
        switch reason {
        case .noSuchTable: return "table \(table) does not exist"
        case .unsupportedTable(let why): return "table \(table) cannot be synchronized: \(why)"
        case .unregisteredTable: return "table \(table) is not registered for synchronization in this database"
        case .unknownColumn(let column):
            return "table \(table) has no column \(column); migrate the schema and register the table again"
        case .keyChanged(let what):
            return "the key of synced table \(table) changed (\(what)); a synced table's key column cannot be renamed, dropped or retyped"
        case .upgradeRequired(let column?):
            return "the data was written with a newer schema: table \(table) has no column \(column) here; upgrade the application"
        case .referencesBroken:
            return "the schema change leaves rows of \(table) referring to rows that do not exist (PRAGMA foreign_key_check)"
        case .upgradeRequired(nil):
            return "the data was written with a newer schema: table \(table) is not synchronized here; upgrade the application"
        }
    }
}

extension LocalStoreError.Reason {
    /// Whether the reason is ``upgradeRequired(column:)``.
    var isUpgradeRequired: Bool {
        if case .upgradeRequired = self { true } else { false }
    }
}

extension LocalStoreError {
    /// The table and column (`nil`: the table itself) that a change set needs and the local
    /// schema lacks, when that is why applying it failed (the apply was rolled back).
    var newerSchema: (table: String, column: String?)? {
        switch reason {
        case .unknownColumn(let column): (table, column)
        case .unregisteredTable: (table, nil)
        default: nil
        }
    }
}
