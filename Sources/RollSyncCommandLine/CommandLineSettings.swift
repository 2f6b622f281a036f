import Foundation
import GRDB
import SyncCore

/// The `rollsync` tool's configuration of one database, kept in that database's own table
/// `rollingsync_cli_settings` (key, value), created by the migration `rollsync-cli-v1`.
///
/// It holds the remote URL, the identifiers, the client description, the encryption choice, the
/// backend's non-secret settings (`remote.identity-file`, `remote.known-hosts`, `remote.user`…) and
/// the outcome of the last sync. Secrets are never stored here: passwords come from environment
/// variables, `~/.netrc` or a prompt each time they are needed.
struct CommandLineSettings: Sendable, Equatable {
    /// The remote store's URL (without any password).
    var remoteURL: URL
    /// The application identifier (the top folder of the remote data).
    var applicationID: String
    /// The document identifier.
    var documentID: String
    /// This client's identifier in the remote data (a UUID chosen by `init`).
    var clientID: String
    /// This client's description, shown in client listings.
    var clientDescription: String
    /// Whether the remote data is encrypted.
    var encrypted: Bool
    /// Where the unlocked data key is cached (a directory only this user can read).
    var keyCacheDirectory: String
    /// The backend's non-secret settings.
    var remoteSettings: [String: String]

    /// The remote store these settings name.
    var remoteLocation: RemoteLocation {
        RemoteLocation(url: remoteURL, settings: remoteSettings)
    }

    /// The keys of the table.
    enum Key {
        static let remoteURL = "remote-url"
        static let applicationID = "application-id"
        static let documentID = "document-id"
        static let clientID = "client-id"
        static let clientDescription = "client-description"
        static let encrypted = "encryption"
        static let keyCache = "key-cache"
        static let remotePrefix = "remote."
        static let lastSync = "last-sync"
    }

    static let migrator: RollingSyncMigrator = {
        var migrator = RollingSyncMigrator(identifierPrefix: "rollsync-cli", formerGRDBIdentifiers: ["rollsync-cli-v1"])
        migrator.registerMigration("rollsync-cli-v1") { db in
            try db.execute(sql: "CREATE TABLE rollingsync_cli_settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        }
        return migrator
    }()

    /// Reads the settings of `db`; `nil` if the database was never initialised with `rollsync init`.
    static func read(from db: Database) throws -> CommandLineSettings? {
        guard try db.tableExists("rollingsync_cli_settings") else { return nil }
        let values = try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM rollingsync_cli_settings").map {
                ($0["key"] as String, $0["value"] as String)
            }
        )
        guard let url = values[Key.remoteURL].flatMap(URL.init(string:)),
            let applicationID = values[Key.applicationID],
            let documentID = values[Key.documentID],
            let clientID = values[Key.clientID]
        else { return nil }
        var remoteSettings: [String: String] = [:]
        for (key, value) in values where key.hasPrefix(Key.remotePrefix) {
            remoteSettings[String(key.dropFirst(Key.remotePrefix.count))] = value
        }
        return CommandLineSettings(
            remoteURL: url,
            applicationID: applicationID,
            documentID: documentID,
            clientID: clientID,
            clientDescription: values[Key.clientDescription] ?? "",
            encrypted: values[Key.encrypted] == "on",
            keyCacheDirectory: values[Key.keyCache] ?? "",
            remoteSettings: remoteSettings
        )
    }

    /// Writes these settings into `db` (creating the table if needed), replacing earlier ones.
    func write(to db: Database) throws {
        var values: [String: String] = [
            Key.remoteURL: remoteURL.absoluteString,
            Key.applicationID: applicationID,
            Key.documentID: documentID,
            Key.clientID: clientID,
            Key.clientDescription: clientDescription,
            Key.encrypted: encrypted ? "on" : "off",
            Key.keyCache: keyCacheDirectory,
        ]
        for (key, value) in remoteSettings {
            values[Key.remotePrefix + key] = value
        }
        try db.execute(sql: "DELETE FROM rollingsync_cli_settings WHERE key <> ?", arguments: [Key.lastSync])
        for (key, value) in values {
            try db.execute(sql: "INSERT INTO rollingsync_cli_settings (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// Records the outcome of the last successful sync (a JSON object).
    /// Removes every `rollsync` setting from the database file at `url` (not open elsewhere), so a
    /// file made from another client's data (a restore) is not taken for that client's database:
    /// `rollsync init` sets it up anew.
    static func remove(fromDatabaseAt url: URL) throws {
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        try database.write { db in
            if try db.tableExists("rollingsync_cli_settings") {
                try db.execute(sql: "DELETE FROM rollingsync_cli_settings")
            }
        }
    }

    static func recordLastSync(_ json: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO rollingsync_cli_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            arguments: [Key.lastSync, json]
        )
    }

    /// The outcome of the last successful sync, if any.
    static func lastSync(in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM rollingsync_cli_settings WHERE key = ?", arguments: [Key.lastSync])
    }
}
