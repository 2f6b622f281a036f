import Foundation

/// The error ``LocalStore`` throws (besides SQLite's own `DatabaseError`). Every error leaves the
/// database as it was before the call.
///
/// Built like ``SyncError`` and `RemoteStoreError`: an opaque ``code`` says what went wrong, the
/// ``table`` (and ``column``) it concerns, and ``description`` explains it in a sentence that
/// never contains row values. Match on codes with `~=`:
/// ```swift
/// do { try localStore.changeSchema { db in … } }
/// catch LocalStoreError.Code.keyChanged { … }
/// ```
public struct LocalStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong: an opaque, extensible set (a `switch` needs a `default:`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The table does not exist in the database.
        public static let noSuchTable = Code("noSuchTable")
        /// The table cannot be synchronized; ``LocalStoreError/detail`` says why and how to fix it.
        public static let unsupportedTable = Code("unsupportedTable")
        /// A change set refers to a table this database has not registered for sync.
        public static let unregisteredTable = Code("unregisteredTable")
        /// A change set refers to a column (``LocalStoreError/column``) the local table does not have
        /// (the sending client has a newer schema); migrate the local schema and apply again.
        public static let unknownColumn = Code("unknownColumn")
        /// The table's key column was renamed, dropped or changed type since it was registered; a
        /// synced table's key must never change (``LocalStoreError/detail`` says what changed).
        public static let keyChanged = Code("keyChanged")
        /// Data written with a newer schema: a whole store names this column (or, when
        /// ``LocalStoreError/column`` is `nil`, the table itself) and the local schema lacks it;
        /// migrate the application first.
        public static let upgradeRequired = Code("upgradeRequired")
        /// A schema change (``LocalStore/changeSchema(_:)``) left rows of this table referring to
        /// rows that do not exist; it was rolled back.
        public static let referencesBroken = Code("referencesBroken")
        /// A newer RollingSync release has upgraded this database's own tables (it recorded a
        /// migration this release does not know, named in ``LocalStoreError/detail``): this release
        /// refuses the database rather than write it in a shape it no longer has. Update the
        /// application (or `rollsync`) to that release; nothing was changed.
        public static let newerRelease = Code("newerRelease")

        public var description: String { name }

        /// Lets `catch LocalStoreError.Code.keyChanged` match an error.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? LocalStoreError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The table concerned.
    public var table: String
    /// The column concerned, for ``Code/unknownColumn`` and ``Code/upgradeRequired``.
    public var column: String?
    /// Why, in words, for ``Code/unsupportedTable`` and ``Code/keyChanged``.
    public var detail: String?

    /// Creates an error.
    package init(_ code: Code, table: String, column: String? = nil, detail: String? = nil) {
        self.code = code
        self.table = table
        self.column = column
        self.detail = detail
    }

    /// A sentence naming the problem, for logs and error messages (never contains row values).
    public var description: String {
        let column = column ?? "?"
        let detail = detail ?? "?"
        switch code {
        case .noSuchTable: return "table \(table) does not exist"
        case .unsupportedTable: return "table \(table) cannot be synchronized: \(detail)"
        case .unregisteredTable: return "table \(table) is not registered for synchronization in this database"
        case .unknownColumn: return "table \(table) has no column \(column); migrate the schema and register the table again"
        case .keyChanged:
            return "the key of synced table \(table) changed (\(detail)); a synced table's key column cannot be renamed, dropped or retyped"
        case .upgradeRequired where self.column == nil:
            return "the data was written with a newer schema: table \(table) is not synchronized here; upgrade the application"
        case .upgradeRequired:
            return "the data was written with a newer schema: table \(table) has no column \(column) here; upgrade the application"
        case .referencesBroken:
            return "the schema change leaves rows of \(table) referring to rows that do not exist (PRAGMA foreign_key_check)"
        case .newerRelease:
            return "a newer RollingSync release upgraded this database (its migration '\(detail)'); this release cannot sync it"
        default: return "table \(table): \(code)"
        }
    }
}

extension LocalStoreError {
    /// The table and column (`nil`: the table itself) that a change set needs and the local
    /// schema lacks, when that is why applying it failed (the apply was rolled back).
    var newerSchema: (table: String, column: String?)? {
        switch code {
        case .unknownColumn: (table, column)
        case .unregisteredTable: (table, nil)
        default: nil
        }
    }
}

extension LocalStoreError: LocalizedError {
    /// The same sentence as ``description``, so that `localizedDescription` (what apps and
    /// Foundation show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
