import ArgumentParser
import Foundation
import GRDB
import RemoteProtocol
import SyncCore

/// `rollsync status`: the database's configuration, its pending local changes, its last sync and
/// the application's clients, and what the last sync held back for a newer schema. The remote is
/// only asked for the client list; if it cannot be reached the rest is still shown.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show pending local changes, the last sync and the clients."
    )

    @OptionGroup var database: DatabaseOptions
    @Option(name: .customLong("row"), help: ArgumentHelp(
        "Also show the global identity of a row of a table with integer keys: TABLE:ID (repeat for several).", valueName: "table:id"
    ))
    var rows: [String] = []
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let queue = try DatabaseFile.open(database.db, busyTimeout: database.busyTimeout)
        let settings = try DatabaseFile.settings(of: queue, path: database.db)
        let localStore = try LocalStore(writer: queue)
        let pending = try localStore.readPendingChanges { _ in }
        let lastSync = try await queue.read { db in try CommandLineSettings.lastSync(in: db) }
            .flatMap { try? JSONDecoder.iso8601.decode(SyncResult.self, from: Data($0.utf8)) }
        var result = StatusResult(
            database: database.db,
            remote: settings.remoteURL.absoluteString,
            application: settings.applicationID,
            document: settings.documentID,
            client: settings.clientID,
            encrypted: settings.encrypted,
            tables: try localStore.syncedTables().map(\.name),
            pendingChanges: pending,
            lastSyncAt: lastSync?.finishedAt,
            lastSyncSummary: lastSync?.humanLines.first,
            waitingForUpgrade: lastSync?.upgradeRequired.map { $0.map(\.text) } ?? [],
            clients: nil,
            clientsUnavailable: nil,
            rows: try rows.map { try Self.identity(of: $0, in: localStore) }
        )
        do {
            result.clients = try await Self.clients(settings)
        } catch {
            result.clientsUnavailable = CommandLineError(classifying: error)?.message ?? String(describing: error)
        }
        try output.console.emit(result)
    }

    /// The row `TABLE:ID` names and its global identity.
    private static func identity(of argument: String, in localStore: LocalStore) throws -> RowIdentityLine {
        guard let separator = argument.lastIndex(of: ":"), let id = Int64(argument[argument.index(after: separator)...]) else {
            throw ValidationError("--row takes TABLE:ID, e.g. lists:7 (got \(argument))")
        }
        let table = String(argument[..<separator])
        return RowIdentityLine(table: table, id: id, globalIdentity: try localStore.globalIdentity(ofRowWithID: id, in: table))
    }

    /// The identifiers of the application's registered clients (the `ClientDevices` folders).
    private static func clients(_ settings: CommandLineSettings) async throws -> [String] {
        let layout = try ApplicationLayout(applicationID: SyncIdentifier(settings.applicationID))
        return try await settings.remoteLocation.withStore(registry: .withRollSyncBackends(), environment: ProcessInfo.processInfo.environment) { store in
            do {
                return try await store.list(layout.clientDevices).filter(\.isDirectory).map(\.name).sorted()
            } catch let error as RemoteStoreError {
                throw error.attributed(to: store.backendName)
            }
        }
    }
}

extension JSONDecoder {
    /// A decoder reading ISO 8601 dates, as ``Console/jsonLine(_:)`` writes them.
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// What `status` shows.
struct StatusResult: CommandResult {
    var command = "status"
    var database: String
    var remote: String
    var application: String
    var document: String
    var client: String
    var encrypted: Bool
    var tables: [String]
    var pendingChanges: Int
    var lastSyncAt: Date?
    var lastSyncSummary: String?
    /// What the last sync held back for a newer schema (see `sync`'s exit code 5).
    var waitingForUpgrade: [String]
    var clients: [String]?
    var clientsUnavailable: String?
    /// The rows asked for with `--row`.
    var rows: [RowIdentityLine] = []

    var humanLines: [String] {
        var lines = [
            "\(database) syncs \(tables.joined(separator: ", ")) with \(remote)",
            "  application \(application), document \(document), client \(client), \(encrypted ? "encrypted" : "not encrypted")",
            "  pending local changes: \(pendingChanges)",
            "  last sync: " + (lastSyncAt.map { "\($0.formatted(.iso8601)) — \(lastSyncSummary ?? "")" } ?? "never"),
        ]
        lines += waitingForUpgrade.map { "  waiting for a schema upgrade: \($0)" }
        if let clients {
            lines.append("  clients (\(clients.count)): " + clients.map { $0 == client ? "\($0) (this one)" : $0 }.joined(separator: ", "))
        } else if let clientsUnavailable {
            lines.append("  clients: unavailable (\(clientsUnavailable))")
        }
        lines += rows.map { row in
            "  row \(row.table):\(row.id): " + (row.globalIdentity.map { "global identity \($0)" } ?? "no such row with a global identity here")
        }
        return lines
    }
}

/// A row of a table with integer keys and the name every client knows it by.
struct RowIdentityLine: Codable, Equatable {
    var table: String
    var id: Int64
    /// `nil` when no row has that id here, or the table's keys name their rows themselves.
    var globalIdentity: String?
}
