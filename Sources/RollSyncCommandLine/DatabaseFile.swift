import Foundation
import GRDB
import SyncCore

/// Opens the SQLite file `--db` names, refusing clearly what is not one, without creating anything.
enum DatabaseFile {
    /// Opens `path` (relative to the current directory) as an existing SQLite database.
    /// - Parameter foreignKeys: whether the connection enforces foreign keys (GRDB's default);
    ///   `migrate` turns them off, as SQLite's table-rebuild procedure asks.
    /// - Throws: ``CommandLineError`` (local database) if the file is missing or not SQLite.
    static func open(_ path: String, foreignKeys: Bool = true) throws -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandLineError(
                .localDatabase, "there is no database at \(path)",
                hint: "create it with your application (or sqlite3) first; rollsync syncs existing databases"
            )
        }
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = foreignKeys
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch let error as DatabaseError {
            throw CommandLineError(.localDatabase, "\(path) cannot be opened as a SQLite database: \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// The settings of a database `rollsync init` configured.
    /// - Throws: ``CommandLineError`` (local database) if it was never initialised.
    static func settings(of database: DatabaseQueue, path: String) throws -> CommandLineSettings {
        guard let settings = try database.read({ try CommandLineSettings.read(from: $0) }) else {
            throw CommandLineError(
                .localDatabase, "\(path) is not set up for syncing",
                hint: "run `rollsync init --db \(path) --remote URL --table NAME…` first"
            )
        }
        return settings
    }

    /// Opens the database at `path`, which `rollsync init` configured, and its local store: what
    /// the commands that work offline (`tables`, `migrate`) need. Nothing is written before the
    /// settings are found.
    static func openLocalStore(_ path: String, foreignKeys: Bool = true) throws -> (queue: DatabaseQueue, localStore: LocalStore) {
        let queue = try open(path, foreignKeys: foreignKeys)
        _ = try settings(of: queue, path: path)
        return (queue, try LocalStore(writer: queue))
    }
}
