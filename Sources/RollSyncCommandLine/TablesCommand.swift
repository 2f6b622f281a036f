import ArgumentParser
import SyncCore

/// `rollsync tables`: the tables a database syncs (`list`, the default), and starting (`add`) or
/// stopping (`remove`) the sync of tables after `init`. All three work offline: they change only
/// the local database and need neither the remote nor a password.
struct TablesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tables",
        abstract: "List the synced tables, or start or stop syncing tables.",
        discussion: """
            `rollsync tables --db FILE` lists the synced tables. `rollsync tables add NAME… --db FILE` starts syncing more tables: \
            their existing rows are published by the next sync, and other clients hold this client's new change sets back \
            (exit code 5) until they add the tables too. `rollsync tables remove NAME… --db FILE` stops syncing tables; \
            their rows stay. These commands work offline.
            """,
        subcommands: [TablesListCommand.self, TablesAddCommand.self, TablesRemoveCommand.self],
        defaultSubcommand: TablesListCommand.self
    )
}

/// One synced table as the `tables` commands print it.
struct SyncedTableLine: Codable, Equatable {
    var name: String
    /// The primary-key columns (several for a composite key), in the order of the key.
    var keyColumns: [String]
    /// The other synced columns, in declaration order.
    var columns: [String]

    /// The tables `localStore` syncs, by name.
    static func all(of localStore: LocalStore) throws -> [SyncedTableLine] {
        try localStore.syncedTables().map { SyncedTableLine(name: $0.name, keyColumns: $0.keyColumns, columns: $0.columns) }
    }

    /// The table as people read it, its name padded to `width`.
    func text(nameWidth width: Int) -> String {
        let padding = String(repeating: " ", count: max(0, width - name.count))
        return "  \(name)\(padding)  key \(keyColumns.joined(separator: ", ")); columns " + (columns.isEmpty ? "(none besides the key)" : columns.joined(separator: ", "))
    }

    /// The lines listing `tables` of `database`.
    static func listing(_ tables: [SyncedTableLine], of database: String) -> [String] {
        guard !tables.isEmpty else { return ["\(database) syncs no tables"] }
        let width = tables.map(\.name.count).max() ?? 0
        return ["\(database) syncs \(tables.count) table\(tables.count == 1 ? "" : "s"):"] + tables.map { $0.text(nameWidth: width) }
    }
}
