import Foundation
import GRDB

/// Opens database files that have the application's schema but are not its database (a snapshot
/// taken for upload, a downloaded whole store, a restore in progress) with the application's own
/// GRDB `Configuration`: its `prepareDatabase` registers the collations and SQL functions that the
/// schema's indexes, views and triggers name. SQLite cannot read a table whose index uses a
/// collation it does not know, nor write one whose index uses an unknown function
/// (``MissingDefinitionError``).
package enum SchemaFile {
    /// Opens `url`, for reading only, with `configuration`: read-only (its `readonly` set). When
    /// the application's setup cannot run on a read-only connection (its `prepareDatabase` writes,
    /// e.g. `PRAGMA journal_mode = WAL`), the file, a private copy, is opened for writing with
    /// the same configuration; the setup may then change its journal mode, and the caller must
    /// only read (GRDB's own reads reset `PRAGMA query_only`, so it cannot guard this). When that
    /// fails too, the first error is thrown.
    package static func openForReading(_ url: URL, configuration: Configuration) throws -> DatabaseQueue {
        var readOnly = configuration
        readOnly.readonly = true
        do {
            return try DatabaseQueue(path: url.path, configuration: readOnly)
        } catch {
            guard let writable = try? open(url, configuration: configuration) else { throw error }
            return writable
        }
    }

    /// Opens `url` for writing with `configuration`, foreign keys off when `foreignKeys` is false
    /// (also when the application's setup turns them on). GRDB's `journalMode = .wal` is not
    /// applied, so a snapshot stays the single file `VACUUM INTO` wrote, unless the application's
    /// own `prepareDatabase` changes the journal mode.
    package static func open(_ url: URL, configuration: Configuration, foreignKeys: Bool = true) throws -> DatabaseQueue {
        var writable = configuration
        writable.readonly = false
        writable.journalMode = .default
        if !foreignKeys {
            writable.foreignKeysEnabled = false
            writable.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        }
        return try DatabaseQueue(path: url.path, configuration: writable)
    }
}

/// A database file names a collation or SQL function that the connection reading it does not
/// define: the application registers it on its own connections (in its GRDB configuration's
/// `prepareDatabase`), and the file was opened without it. It says nothing about the file's
/// health. Give RollingSync the application's configuration (a ``LocalStore`` on the app's
/// database carries it); the command line, which cannot know an application's functions, reports
/// this error.
package struct MissingDefinitionError: Error, Sendable, CustomStringConvertible {
    /// What is missing, as SQLite names it: `collation app`, `function label()`.
    package var definition: String

    /// The definition a SQLite error says is missing; `nil` for any other error.
    package init?(_ error: DatabaseError) {
        let message = error.message ?? ""
        for (prefix, kind) in [("no such collation sequence: ", "collation"), ("unknown function: ", "function"), ("no such function: ", "function")]
        where message.hasPrefix(prefix) {
            var name = String(message.dropFirst(prefix.count).prefix { $0 != "\n" })
            if kind == "function", !name.hasSuffix("()") { name += "()" }
            definition = "\(kind) \(name)"
            return
        }
        return nil
    }

    package var description: String {
        "the database schema uses the \(definition), which this connection does not define: open it with the application's own "
            + "GRDB configuration, whose prepareDatabase registers it"
    }

    /// Runs `body`, turning a SQLite error about a missing collation or function into this error.
    package static func translating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            if let missing = MissingDefinitionError(error) { throw missing }
            throw error
        }
    }
}
