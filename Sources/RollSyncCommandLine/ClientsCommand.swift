import ArgumentParser
import Foundation
import SyncCore

/// `rollsync clients`: the clients of this database's document, or of the whole application.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "List the clients of this database's document (or, with --all, of the application)."
    )

    @OptionGroup var target: SessionOptions

    @Flag(name: .customLong("all"), help: "List every client of the application, with its documents.")
    var wholeApplication = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            let this = session.settings.clientID
            if wholeApplication {
                for client in try await session.application.clients() {
                    try output.console.emit(
                        ClientLine(
                            client: client.device.clientID.rawValue, description: client.device.description, isThisDatabase: client.device.clientID.rawValue == this,
                            documents: client.documents.map(\.rawValue), lastSync: nil, wholeStore: nil, changeSets: nil
                        )
                    )
                }
            } else {
                for client in try await session.application.clients(of: SyncIdentifier(session.settings.documentID)) {
                    try output.console.emit(
                        ClientLine(
                            client: client.clientID.rawValue, description: client.description, isThisDatabase: client.clientID.rawValue == this,
                            documents: nil, lastSync: client.lastSyncDate, wholeStore: client.wholeStoreDate, changeSets: client.changeSetCount
                        )
                    )
                }
            }
        }
    }
}

/// One client, as `clients` prints it.
struct ClientLine: CommandResult {
    var command = "clients"
    var client: String
    var description: String
    var isThisDatabase: Bool
    /// With `--all`: the documents it is registered with.
    var documents: [String]?
    /// Per document: its last sync, its newest whole store and its change-set count.
    var lastSync: Date?
    var wholeStore: Date?
    var changeSets: Int?

    var humanLines: [String] {
        var line = "\(client)\(isThisDatabase ? " (this database)" : "")  \(description)"
        if let documents { line += "  documents: \(documents.joined(separator: ", "))" }
        if let changeSets {
            line += "  last sync \(lastSync.map { $0.formatted(.iso8601) } ?? "never"), \(changeSets) change sets"
            if let wholeStore { line += ", whole store of \(wholeStore.formatted(.iso8601))" }
        }
        return [line]
    }
}
