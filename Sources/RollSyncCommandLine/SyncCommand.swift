import ArgumentParser
import Foundation
import SyncCore

/// `rollsync sync`: applies other clients' changes and pushes this database's.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply the other clients' changes and push this database's."
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var password: PasswordOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let session = try await SyncSession.open(path: database.db, password: password.source, environment: ProcessInfo.processInfo.environment)
        let report = try await session.showingProgress(quiet: output.json) { try await $0.synchronize() }
        try output.console.emit(try await session.recordSync(report))
    }
}
