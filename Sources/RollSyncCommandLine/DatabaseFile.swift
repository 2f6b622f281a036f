import Foundation
import GRDB
import SyncCore

/// Opens the SQLite file `--db` names, refusing clearly what is not one, without creating anything.
enum DatabaseFile {
    /// Opens `path` (relative to the current directory) as an existing SQLite database whose
    /// connection waits up to `busyTimeout` seconds when another connection (the application, or
    /// another rollsync) holds a lock, instead of failing at once.
    /// - Parameter foreignKeys: whether the connection enforces foreign keys (GRDB's default).
    /// - Throws: ``CommandLineError`` (local database) if the file is missing, not SQLite, or stays
    ///   locked longer than the timeout.
    static func open(_ path: String, busyTimeout: Double, foreignKeys: Bool = true) throws -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandLineError(
                .localDatabase, "there is no database at \(path)",
                hint: "create it with your application (or sqlite3) first; rollsync syncs existing databases"
            )
        }
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = foreignKeys
            configuration.busyMode = .timeout(busyTimeout)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw busy(path, timeout: busyTimeout)
        } catch let error as DatabaseError {
            throw CommandLineError(.localDatabase, "\(path) cannot be opened as a SQLite database: \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// The error of a database that stayed locked longer than the busy timeout.
    static func busy(_ path: String, timeout: Double) -> CommandLineError {
        CommandLineError(
            .localDatabase,
            "\(path) is busy: another connection (the application, or sqlite3) held a lock on it for more than \(Int(timeout)) s",
            hint: "run again when it has committed, or wait longer with --busy-timeout SECONDS"
        )
    }

    /// Takes the process lock of the database at `path` (see ``DatabaseLock``), printing a line on
    /// standard error if it has to wait more than a second.
    static func lock(_ path: String, busyTimeout: Double) async throws -> DatabaseLock {
        try await DatabaseLock.acquire(for: path, timeout: busyTimeout) { line in
            Console.writeError("rollsync: \(line)\n")
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
    /// the commands that work offline (`tables`, `migrate`) need, holding the database's process
    /// lock. Nothing is written before the settings are found.
    static func openLocalStore(_ path: String, busyTimeout: Double) async throws -> (queue: DatabaseQueue, localStore: LocalStore, lock: DatabaseLock) {
        let queue = try open(path, busyTimeout: busyTimeout)
        _ = try settings(of: queue, path: path)
        let lock = try await lock(path, busyTimeout: busyTimeout)
        return (queue, try LocalStore(writer: queue), lock)
    }
}
