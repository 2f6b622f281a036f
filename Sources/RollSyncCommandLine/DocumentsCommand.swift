import ArgumentParser
import Foundation
import SyncCore

/// `rollsync documents`: the application's documents.
struct DocumentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "documents",
        abstract: "List the application's documents."
    )

    @OptionGroup var target: SessionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            for document in try await session.application.documents() {
                try output.console.emit(
                    DocumentLine(
                        document: document.documentID.rawValue, description: document.description,
                        createdBy: document.createdBy.rawValue, createdAt: document.createdAt, lastSync: document.lastSyncDate,
                        isThisDatabase: document.documentID.rawValue == session.settings.documentID
                    )
                )
            }
        }
    }
}

/// One document, as `documents` prints it.
struct DocumentLine: CommandResult {
    var command = "documents"
    var document: String
    var description: String
    var createdBy: String
    var createdAt: Date
    var lastSync: Date?
    var isThisDatabase: Bool

    var humanLines: [String] {
        [
            "\(document)\(isThisDatabase ? " (this database)" : "")  \(description)  created \(createdAt.formatted(.iso8601)) by \(createdBy), "
                + "last sync \(lastSync.map { $0.formatted(.iso8601) } ?? "never")"
        ]
    }
}
