import ArgumentParser
import Foundation
import SyncCore

/// `rollsync sync`: applies other clients' changes and pushes this database's.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply the other clients' changes and push this database's."
    )

    @OptionGroup var target: SessionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let session = try await target.open()
        let report = try await session.showingProgress(quiet: output.json) { try await $0.synchronize() }
        try output.console.emit(try await session.recordSync(report))
    }
}
