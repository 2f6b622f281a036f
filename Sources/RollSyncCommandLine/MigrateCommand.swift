import ArgumentParser
import Foundation
import GRDB
import SyncCore

/// `rollsync migrate`: runs a schema migration of the synced tables with the capture triggers out
/// of the way, then follows the new schema.
///
/// `ALTER TABLE … ADD COLUMN` needs nothing (the next sync notices it; sqlite3 or the application
/// can run it). `DROP COLUMN`, `RENAME COLUMN` and table rebuilds need this command: SQLite
/// refuses to drop or rename a column the capture triggers use ("error in trigger rollingsync_…"),
/// and a rebuild would lose them. The SQL runs in one transaction, with foreign keys not enforced
/// (as SQLite's table-rebuild procedure asks) but checked at the end; if anything fails (an SQL
/// error, a synced table's key changed, a synced table dropped, a new foreign-key violation) it is
/// rolled back and the file is unchanged. Writes the SQL makes are not published (every client runs
/// the same migration), except values written into added columns. Offline: changes the local
/// database only.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Change the synced tables' schema (DROP or RENAME COLUMN, table rebuilds) without breaking capture.",
        discussion: """
            The SQL (--file first, then --sql) runs in one transaction with the capture triggers removed, then they are \
            generated for the new schema. No BEGIN or COMMIT in it. Foreign keys are not enforced during the migration but \
            checked at its end. Any failure rolls everything back. Run the same migration on every client; other clients' \
            values for a dropped column are ignored, and a client without an added column holds the sets that use it back \
            (its sync ends with exit code 5) until it migrates.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("SQL statements to run (`ALTER TABLE notes DROP COLUMN body`).", valueName: "sql"))
    var sql: String?

    @Option(name: .long, help: ArgumentHelp("A file of SQL statements to run (before --sql).", valueName: "file"))
    var file: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if sql == nil && file == nil {
            throw ValidationError("give the migration with --sql SQL or --file FILE")
        }
    }

    func run() async throws {
        var scripts: [String] = []
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandLineError(.usage, "there is no readable file at \(file)")
            }
            scripts.append(String(decoding: data, as: UTF8.self))
        }
        if let sql { scripts.append(sql) }
        let script = scripts.joined(separator: ";\n")
        if script.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";"))).isEmpty {
            throw CommandLineError(.usage, "the migration is empty")
        }

        let (_, localStore, lock) = try await DatabaseFile.openLocalStore(database.db, busyTimeout: database.busyTimeout)
        defer { withExtendedLifetime(lock) {} }
        let synced = try localStore.syncedTables().map(\.name)
        let changes: [SchemaChange]
        do {
            changes = try localStore.changeSchema { db in
                try db.execute(sql: script)
                // A synced table that is gone is the first thing to say (it explains the rest).
                if let gone = try synced.first(where: { try !db.tableExists($0) }) {
                    throw LocalStoreError(.noSuchTable, table: gone)
                }
            }
        } catch {
            throw Self.failure(error, database: database.db)
        }
        try output.console.emit(MigrateResult(database: database.db, schemaChanges: changes.map(SchemaChangeLine.init)))
    }

    /// The number of foreign-key violations per table.
    private static func failure(_ error: any Error, database: String) -> any Error {
        let prefix = "the migration failed and was rolled back; \(database) is unchanged: "
        switch error {
        case let error as CommandLineError:
            return CommandLineError(error.kind, prefix + error.message, hint: error.hint)
        case let error as LocalStoreError:
            let hint: String? = switch error.code {
            case .keyChanged:
                "a synced table's key column must keep its name and type; rebuild the table with the same key, or stop syncing it first (`rollsync tables remove \(error.table) --db \(database)`)"
            case .noSuchTable:
                "to drop or rename a synced table, stop syncing it first: `rollsync tables remove \(error.table) --db \(database)`"
            default:
                CommandLineError.hint(for: error)
            }
            return CommandLineError(.localDatabase, prefix + error.description, hint: hint)
        case let error as DatabaseError:
            return CommandLineError(
                .localDatabase, prefix + (error.message ?? error.description),
                hint: "fix the SQL and run `rollsync migrate` again (one transaction: no BEGIN or COMMIT in it)"
            )
        default:
            return error
        }
    }
}

/// What `migrate` did.
struct MigrateResult: CommandResult {
    var command = "migrate"
    var database: String
    /// What changed in the synced tables' schema.
    var schemaChanges: [SchemaChangeLine]

    var humanLines: [String] {
        guard !schemaChanges.isEmpty else {
            return ["\(database): migrated; the synced tables' columns did not change"]
        }
        var lines = ["\(database): migrated"] + schemaChanges.map { "  \($0.text)" }
        if schemaChanges.contains(where: { ($0.publishedRows ?? 0) > 0 }) {
            lines.append("Run `rollsync sync --db \(database)` to publish.")
        }
        return lines
    }
}
