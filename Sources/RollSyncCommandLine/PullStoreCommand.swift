import ArgumentParser
import Foundation
import SyncCore

/// `rollsync pull-store`: installs a whole store in place of the database's synced data (keeping
/// unpushed local changes), then syncs the rest. The bootstrap of a new client. Like `sync`, it
/// ends with exit code 5 if change sets wait for a newer schema.
struct PullStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull-store",
        abstract: "Install the newest whole store (keeping unpushed local changes), then sync the rest."
    )

    @OptionGroup var target: SessionOptions

    @Option(name: .customLong("from"), help: ArgumentHelp("Install this client's store (default: the newest of any client).", valueName: "client"))
    var client: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let source = try client.map { try SyncIdentifier($0) }
        try await target.withSession { session in
            let report = try await session.showingProgress(quiet: output.json) { try await $0.downloadWholeStore(from: source) }
            var sync = try await session.recordSync(report)
            sync.installedWholeStore = nil  // the first line names it
            try output.console.emit(
                WholeStoreResult(
                    command: "pull-store", database: session.path,
                    unit: report.wholeStoreInstalled?.unit.directoryName ?? "",
                    client: report.wholeStoreInstalled?.client.rawValue ?? "",
                    bytes: 0, sync: sync
                )
            )
            if let upgradeRequired = sync.upgradeRequiredError { throw upgradeRequired }
        }
    }
}
