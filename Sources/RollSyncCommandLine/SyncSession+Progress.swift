import GRDB
import SyncCore

extension SyncSession {
    /// Runs `operation` on the document while its progress is shown (see
    /// ``ProgressDisplay/showing(_:quiet:_:)``).
    func showingProgress<Result: Sendable>(
        quiet: Bool,
        _ operation: (DocumentSyncManager) async throws -> Result
    ) async throws -> Result {
        try await ProgressDisplay.showing(document, quiet: quiet, operation)
    }

    /// Records `report` as the database's last sync and returns its result.
    func recordSync(_ report: SyncReport) async throws -> SyncResult {
        let result = SyncResult(database: path, report: report)
        let recorded = try Console.jsonLine(result)
        try await database.write { db in try CommandLineSettings.recordLastSync(recorded, in: db) }
        return result
    }
}
