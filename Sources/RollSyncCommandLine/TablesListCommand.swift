import ArgumentParser
import SyncCore

/// `rollsync tables [list]`: the tables a database syncs, with their key column and columns.
/// Offline: reads the local database only.
struct TablesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the synced tables: name, key column, columns (the default of `rollsync tables`)."
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (_, localStore, lock) = try await DatabaseFile.openLocalStore(database.db, busyTimeout: database.busyTimeout)
        defer { withExtendedLifetime(lock) {} }
        try output.console.emit(TablesResult(database: database.db, tables: try SyncedTableLine.all(of: localStore)))
    }
}

/// What `tables` lists.
struct TablesResult: CommandResult {
    var command = "tables"
    var database: String
    var tables: [SyncedTableLine]

    var humanLines: [String] {
        SyncedTableLine.listing(tables, of: database)
    }
}
