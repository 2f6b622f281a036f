import GRDB

/// Folds the change-log entries of one row into its net ``RowChange``, reading the row's current
/// values from its table.
///
/// The log holds no values: an insert entry means "send the whole row", an update entry "send this
/// column", a delete entry "send a deletion"; what is sent is the row as it is now, each column with
/// the clock of its latest logged edit.
struct PendingChangeFolder {
    private let tables: [Int64: SyncedTable]
    private let db: Database

    /// The log entries of the row being folded.
    struct Entries {
        var tableID: Int64
        var key: DatabaseValue
        var insertClock: HLCTimestamp?
        var deleteClock: HLCTimestamp?
        var updateClocks: [String: HLCTimestamp] = [:]
    }

    init(tables: [SyncedTable], db: Database) {
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.id, $0) })
        self.db = db
    }

    /// The net change of a row, or `nil` when its table is no longer registered.
    func fold(_ entries: Entries) throws -> RowChange? {
        guard let table = tables[entries.tableID] else { return nil }
        let columnList = table.columns.map(\.sqlIdentifier).joined(separator: ", ")
        let selection = columnList.isEmpty ? "1" : columnList
        let statement = try db.cachedStatement(
            sql: "SELECT \(selection) FROM \(table.name.sqlIdentifier) WHERE \(table.keyColumn.sqlIdentifier) = ?"
        )
        guard let row = try Row.fetchOne(statement, arguments: [entries.key]) else {
            let clock = [entries.deleteClock, entries.insertClock].compactMap { $0 }.max()
                ?? entries.updateClocks.values.max() ?? .zero
            return RowChange(kind: .delete, table: table.name, key: entries.key, clock: clock)
        }
        let wholeRowClock = [entries.insertClock, entries.deleteClock].compactMap { $0 }.max()
        var columns: [RowChange.Column] = []
        for (index, name) in table.columns.enumerated() {
            let updated = entries.updateClocks[name]
            guard let clock = [wholeRowClock, updated].compactMap({ $0 }).max() else { continue }
            columns.append(.init(name: name, value: row[index], clock: clock))
        }
        let kind: RowChange.Kind = wholeRowClock == nil ? .update : .insert
        if kind == .update && columns.isEmpty { return nil }
        let clock = columns.map(\.clock).max() ?? wholeRowClock ?? .zero
        return RowChange(kind: kind, table: table.name, key: entries.key, clock: clock, columns: columns)
    }
}
