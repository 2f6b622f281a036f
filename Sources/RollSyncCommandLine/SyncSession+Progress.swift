import GRDB
import SyncCore

extension SyncSession {
    /// Runs `operation` on the document while its progress is shown (see ``ProgressDisplay``);
    /// the display is cleared before this returns or throws.
    func showingProgress<Result: Sendable>(
        quiet: Bool,
        _ operation: (DocumentSyncManager) async throws -> Result
    ) async throws -> Result {
        let progress = ProgressDisplay(document.progressEvents(), quiet: quiet)
        do {
            let result = try await operation(document)
            await progress.finish()
            return result
        } catch {
            await progress.finish()
            throw error
        }
    }

    /// Records `report` as the database's last sync and returns its result.
    func recordSync(_ report: SyncReport) async throws -> SyncResult {
        let result = SyncResult(database: path, report: report)
        let recorded = try Console.jsonLine(result)
        try await database.write { db in try CommandLineSettings.recordLastSync(recorded, in: db) }
        return result
    }
}
