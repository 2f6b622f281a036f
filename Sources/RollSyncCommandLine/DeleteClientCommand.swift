import ArgumentParser
import Foundation
import SyncCore

/// `rollsync delete-client`: removes another client from this document or from the application.
struct DeleteClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-client",
        abstract: "Remove another client from this database's document (or, with --everywhere, from the application).",
        discussion: """
            Remove only clients that are gone for good: their change sets that others have not applied yet are missing there \
            until the removed client syncs again (it then registers again and publishes once more what it wrote), and for good \
            if it never does.
            """
    )

    @OptionGroup var target: SessionOptions

    @Option(name: .customLong("client"), help: ArgumentHelp("The client to remove (see `rollsync clients`).", valueName: "id"))
    var client: String

    @Flag(name: .long, help: "Remove it from every document and from the application.")
    var everywhere = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let removed = try SyncIdentifier(client)
        try await target.withSession { session in
            if everywhere {
                try await session.application.removeClientFromApplication(removed)
            } else {
                try await session.application.removeClient(removed, from: SyncIdentifier(session.settings.documentID))
            }
            try output.console.emit(
                RemovalResult(command: "delete-client", removed: client, from: everywhere ? session.settings.applicationID : session.settings.documentID)
            )
        }
    }
}

/// What `delete-client` or `delete-document` removed.
struct RemovalResult: CommandResult {
    var command: String
    var removed: String
    var from: String

    var humanLines: [String] { ["removed \(removed) from \(from)"] }
}
