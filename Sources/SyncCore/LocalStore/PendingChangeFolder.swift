import GRDB

/// Folds the change-log entries of one row into its net ``RowChange``, reading the row's current
/// values from its table.
///
/// The log holds no values: an insert entry means "send the whole row", an update entry "send this
/// column", a delete entry "send a deletion"; what is sent is the row as it is now, each column with
/// the clock of its latest logged edit. BLOBs of 1 MiB or more in rowid tables are read through
/// ``IncrementalBlob``, so each is in memory once. A column holding the local id of another row
/// (``SyncedTable/localReferences``) is sent as that row's global identity.
struct PendingChangeFolder {
    private let tables: [Int64: SyncedTable]
    /// For each table with a rowid, the name that selects it.
    private let rowidNames: [Int64: String]
    private let db: Database

    /// The log entries of the row being folded.
    struct Entries {
        var tableID: Int64
        var key: DatabaseValue
        var pending = PendingRow()
    }

    init(tables: [SyncedTable], db: Database) throws {
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.id, $0) })
        var rowidNames: [Int64: String] = [:]
        for table in tables {
            rowidNames[table.id] = try IncrementalBlob.rowidName(of: table.name, columns: table.columns + table.keyColumns, in: db)
        }
        self.rowidNames = rowidNames
        self.db = db
    }

    /// The net change of a row, or `nil` when its table is no longer registered.
    func fold(_ entries: Entries) throws -> RowChange? {
        guard let table = tables[entries.tableID] else { return nil }
        let rowidName = rowidNames[table.id]
        let hasRowid = rowidName != nil
        // With a rowid, each column comes with its BLOB length, and a large BLOB is left out of
        // the row (SQLite reads neither for typeof() and length()) to be read incrementally.
        // A reference to a row whose key is local travels as that row's global identity (as is
        // when it names no row known here).
        func published(_ column: String) -> String? {
            table.localReferences[column].map { "coalesce(\(RowIdentity.global(ofLocal: column.sqlIdentifier, tableID: $0)), \(column.sqlIdentifier))" }
        }
        let selection = hasRowid
            ? ([rowidName ?? "rowid"] + table.columns.flatMap { column in
                let name = column.sqlIdentifier
                if let published = published(column) { return [published, "NULL"] }
                return [
                    "iif(typeof(\(name)) = 'blob' AND length(\(name)) >= \(IncrementalBlob.threshold), NULL, \(name))",
                    "iif(typeof(\(name)) = 'blob', length(\(name)), NULL)",
                ]
            }).joined(separator: ", ")
            : (table.columns.isEmpty ? "1" : table.columns.map { published($0) ?? $0.sqlIdentifier }.joined(separator: ", "))
        let statement = try db.cachedStatement(
            sql: "SELECT \(selection) FROM \(table.name.sqlIdentifier) WHERE \(table.key.matches())"
        )
        func value(_ row: Row, _ index: Int) throws -> DatabaseValue {
            guard hasRowid else { return row[index] }
            let value: DatabaseValue = row[1 + 2 * index]
            guard value.isNull, let length = row[2 + 2 * index] as Int?, length >= IncrementalBlob.threshold else { return value }
            let data = try IncrementalBlob.read(table.name, table.columns[index], rowid: row[0], length: length, in: db)
            return data.databaseValue
        }
        guard let row = try Row.fetchOne(statement, arguments: StatementArguments(values: try table.key.components(of: entries.key))) else {
            let clock = entries.pending.wholeRowClock ?? entries.pending.columnClocks.values.max() ?? .zero
            return RowChange(kind: .delete, table: table.name, key: entries.key, clock: clock)
        }
        let wholeRowClock = entries.pending.wholeRowClock
        var columns: [RowChange.Column] = []
        for (index, name) in table.columns.enumerated() {
            guard let clock = entries.pending.clock(of: name) else { continue }
            columns.append(.init(name: name, value: try value(row, index), clock: clock))
        }
        let kind: RowChange.Kind = wholeRowClock == nil ? .update : .insert
        if kind == .update && columns.isEmpty { return nil }
        let clock = columns.map(\.clock).max() ?? wholeRowClock ?? .zero
        return RowChange(kind: kind, table: table.name, key: entries.key, clock: clock, columns: columns)
    }
}
