import ArgumentParser
import Foundation
import SyncCore

/// `rollsync push-store`: syncs, then uploads a snapshot of the database as this client's whole
/// store, so new clients start from it instead of replaying every change set.
struct PushStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-store",
        abstract: "Sync, then upload the whole database so new clients can start from it."
    )

    @OptionGroup var target: SessionOptions
    @OptionGroup var history: KeepHistoryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            let upload = try await session.showingProgress(quiet: output.json) {
                try await $0.uploadWholeStore(keepingHistoryFor: history.period)
            }
            try output.console.emit(
                WholeStoreResult(
                    command: "push-store", database: session.path, unit: upload.unit.directoryName, client: session.settings.clientID,
                    bytes: upload.uploadedBytes, sync: nil
                )
            )
        }
    }
}

/// What `push-store` or `pull-store` did.
struct WholeStoreResult: CommandResult {
    var command: String
    var database: String
    /// The unit's directory name.
    var unit: String
    /// The client whose unit it is.
    var client: String
    /// The unit's size before the codec (0 when unknown).
    var bytes: Int64
    /// The tail sync of a download.
    var sync: SyncResult?

    var humanLines: [String] {
        let verb = command == "push-store" ? "uploaded whole store" : "installed whole store"
        var lines = ["\(database): \(verb) \(unit) of client \(client)" + (bytes > 0 ? " (\(SyncResult.bytes(bytes)))" : "")]
        if let sync { lines += sync.humanLines.map { "  then " + $0 } }
        return lines
    }
}
