import ArgumentParser
import GRDB
import SyncCore

/// `rollsync tables remove NAME…`: stops syncing tables. Their capture triggers and unpushed
/// changes are dropped; their rows stay in the database. Every name is checked first; if one is
/// not synced nothing is changed. Works for a synced table that was dropped from the database,
/// which is how a sync that fails because it is gone is repaired. Offline: changes the local
/// database only.
struct TablesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Stop syncing tables (their rows stay in the database)."
    )

    @Argument(help: ArgumentHelp("The tables to stop syncing.", valueName: "name"))
    var names: [String]

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (_, localStore, lock) = try await DatabaseFile.openLocalStore(database.db, busyTimeout: database.busyTimeout)
        defer { withExtendedLifetime(lock) {} }
        // Not `syncedTables()`, which inspects each table and fails when one was dropped: a case
        // this command must handle.
        let registered = try localStore.registeredTableNames()
        var removing: [String] = []
        for name in names {
            guard let canonical = registered.first(where: { $0.lowercased() == name.lowercased() }) else {
                throw CommandLineError(
                    .usage, "\(database.db) does not sync a table named '\(name)'; nothing was changed",
                    hint: registered.isEmpty ? "it syncs no tables" : "it syncs: \(registered.joined(separator: ", "))"
                )
            }
            if !removing.contains(canonical) { removing.append(canonical) }
        }
        var discarded = 0
        _ = try? localStore.readPendingChanges { change in
            if removing.contains(change.table) { discarded += 1 }
        }
        for name in removing {
            try localStore.unregister(table: name)
        }
        let remaining = try localStore.registeredTableNames()
        try output.console.emit(
            TablesRemoveResult(database: database.db, removed: removing, discardedPendingChanges: discarded, tables: remaining)
        )
    }
}

/// What `tables remove` did.
struct TablesRemoveResult: CommandResult {
    var command = "tables remove"
    var database: String
    /// The tables no longer synced.
    var removed: [String]
    /// Unpushed changes of those tables that were dropped.
    var discardedPendingChanges: Int
    /// The tables still synced.
    var tables: [String]

    var humanLines: [String] {
        var lines = [
            "\(database) no longer syncs \(removed.joined(separator: ", ")); the rows stay in the database"
                + (discardedPendingChanges == 0 ? "" : " (\(discardedPendingChanges) unpushed change\(discardedPendingChanges == 1 ? " was" : "s were") dropped)"),
            "  still synced: " + (tables.isEmpty ? "none" : tables.joined(separator: ", ")),
        ]
        lines.append("Changes other clients still make to \(removed.joined(separator: ", ")) are ignored here, with a warning.")
        return lines
    }
}
