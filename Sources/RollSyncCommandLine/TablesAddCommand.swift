import ArgumentParser
import GRDB
import SyncCore

/// `rollsync tables add NAME…`: starts syncing more tables after `init`.
///
/// Every named table is checked first (it exists, and its key suits syncing, with the engine's
/// own rules on an in-memory copy of the schema, as `init` does); if any is refused nothing is
/// changed. Then each new table is registered and its existing rows are logged as inserts, so the
/// next sync publishes them. Other clients must add the table too: until they do, they hold back
/// this client's change sets from the first one naming it (their sync ends with exit code 5).
/// Offline: changes the local database only.
struct TablesAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Start syncing more tables; their existing rows are published by the next sync."
    )

    @Argument(help: ArgumentHelp("The tables to start syncing (ordinary tables, with any kind of key or none).", valueName: "name"))
    var names: [String]

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (queue, localStore, lock) = try await DatabaseFile.openLocalStore(database.db, busyTimeout: database.busyTimeout)
        defer { withExtendedLifetime(lock) {} }
        let synced = Set(try localStore.syncedTables().map { $0.name.lowercased() })
        var requested: [String] = []
        let checked: [String]
        do {
            checked = try InitCommand.checkTables(names, in: queue, path: database.db).tables
        } catch let error as LocalStoreError {
            throw CommandLineError(.localDatabase, error.description + "; nothing was changed", hint: CommandLineError.hint(for: error))
        } catch let error as CommandLineError {
            throw CommandLineError(error.kind, error.message + "; nothing was changed", hint: error.hint)
        }
        for name in checked where !requested.contains(name) {
            requested.append(name)
        }
        var added: [SchemaChangeLine] = []
        var alreadySynced: [String] = []
        for name in requested {
            if synced.contains(name.lowercased()) {
                alreadySynced.append(name)
            } else if let change = try localStore.addSyncedTable(name) {
                added.append(SchemaChangeLine(change))
            } else {
                alreadySynced.append(name)
            }
        }
        try output.console.emit(
            TablesAddResult(database: database.db, added: added, alreadySynced: alreadySynced, tables: try SyncedTableLine.all(of: localStore))
        )
    }
}

/// What `tables add` did.
struct TablesAddResult: CommandResult {
    var command = "tables add"
    var database: String
    /// The tables now synced, with the existing rows the next sync publishes (`tableAdded`).
    var added: [SchemaChangeLine]
    /// The named tables that were synced already (nothing was done for them).
    var alreadySynced: [String]
    /// Every synced table now.
    var tables: [SyncedTableLine]

    var humanLines: [String] {
        var lines = added.map { table in
            let rows = table.publishedRows ?? 0
            return "\(database) now also syncs \(table.table): "
                + (rows == 0 ? "it has no rows yet" : "its \(rows) existing row\(rows == 1 ? "" : "s") will be published by the next sync")
        }
        lines += alreadySynced.map { "\($0) was already synced" }
        if !added.isEmpty {
            let names = added.map(\.table).joined(separator: " ")
            lines += [
                "Other clients must add \(names) too (`rollsync tables add \(names) --db FILE`): until they do, they hold this client's",
                "new change sets back and their sync ends with exit code 5 (upgrade required).",
                "Run `rollsync sync --db \(database)` to publish.",
            ]
        }
        return lines
    }
}
