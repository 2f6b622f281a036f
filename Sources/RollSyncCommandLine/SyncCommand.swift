import ArgumentParser
import Foundation
import GRDB
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
        let progress = ProgressDisplay(session.document.progressEvents(), quiet: output.json)
        let report: SyncReport
        do {
            report = try await session.document.synchronize()
        } catch {
            await progress.finish()
            throw error
        }
        await progress.finish()
        let result = SyncResult(database: database.db, report: report)
        let recorded = try Console.jsonLine(result)
        try await session.database.write { db in try CommandLineSettings.recordLastSync(recorded, in: db) }
        try output.console.emit(result)
    }
}
