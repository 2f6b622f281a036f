import ArgumentParser
import Foundation
import SyncCore

/// `rollsync sync`: applies other clients' changes and pushes this database's.
///
/// Change sets written with a newer schema (a column or table this database lacks) wait, with the
/// later sets of their clients, while everything else is applied and pushed: the result is printed
/// with a warning for each, and the process ends with exit code 5 (upgrade required) and a hint.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply the other clients' changes and push this database's.",
        discussion: """
            Change sets that need a newer schema (a column or table this database lacks) wait, with the later sets of \
            their clients; everything else is applied and pushed, and the sync ends with exit code 5. Migrate the schema \
            (ALTER TABLE … ADD COLUMN, `rollsync migrate`, `rollsync tables add`) and sync again.
            """
    )

    @OptionGroup var target: SessionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            let report = try await session.showingProgress(quiet: output.json) { try await $0.synchronize() }
            let result = try await session.recordSync(report)
            try output.console.emit(result)
            if let upgradeRequired = result.upgradeRequiredError { throw upgradeRequired }
        }
    }
}
