import ArgumentParser
import Foundation
import SyncCore

/// `rollsync delete-document`: deletes a document's remote data (its local databases keep theirs).
struct DeleteDocumentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-document",
        abstract: "Delete a document's remote data; clients learn it at their next sync.",
        discussion: "A client that syncs the deleted document later is asked whether to recreate it (rollsync recreates it from its local data)."
    )

    @OptionGroup var target: SessionOptions

    @Option(name: .customLong("document"), help: ArgumentHelp("The document to delete (named explicitly, even if it is this database's).", valueName: "id"))
    var document: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let deleted = try SyncIdentifier(document)
        try await target.withSession { session in
            try await session.application.deleteDocument(deleted)
            try output.console.emit(RemovalResult(command: "delete-document", removed: document, from: session.settings.applicationID))
        }
    }
}
