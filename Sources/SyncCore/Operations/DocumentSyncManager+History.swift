import Foundation

extension DocumentSyncManager {
    /// Verifies this document's remote copy (see
    /// ``ApplicationSyncManager/verify(document:options:progress:)``), as an operation of this
    /// manager's queue, reporting progress to ``progressEvents()``.
    public func verifyRemote(_ options: VerificationOptions = VerificationOptions()) async throws -> VerificationReport {
        try await exclusively {
            try await self.application.verify(document: self.documentID, options: options, progress: self.progressSink)
        }
    }

    /// This document's history (see ``ApplicationSyncManager/history(of:matching:progress:)``),
    /// with ``HistoryEntry/appliedHere`` telling which sets this database has applied or pushed.
    public func history(matching query: HistoryQuery = HistoryQuery()) async throws -> DocumentHistory {
        try await exclusively {
            var history = try await self.application.history(of: self.documentID, matching: query, progress: self.progressSink)
            let applied: Set<String>
            do {
                applied = Set(try self.localStore.appliedSetIDs())
            } catch {
                throw SyncError(.local, "cannot read which change sets this database applied: \(error)", underlying: error)
            }
            for index in history.entries.indices {
                history.entries[index].appliedHere = applied.contains(history.entries[index].setID)
            }
            return history
        }
    }

    /// Rebuilds this document as it was at `point` into a new database file (see
    /// ``ApplicationSyncManager/restore(document:to:at:schemaFrom:progress:)``), taking the schema
    /// of a replay from the beginning from this manager's database. The local database itself is
    /// not changed.
    @discardableResult
    public func restore(_ point: RestorePoint, to destination: URL) async throws -> RestoreReport {
        try await exclusively {
            try await self.application.restore(
                document: self.documentID, to: destination, at: point, schemaFrom: self.localStore, progress: self.progressSink
            )
        }
    }

    /// Sends progress events to this manager's streams.
    nonisolated var progressSink: @Sendable (SyncProgress) -> Void {
        { [broadcaster] in broadcaster.send($0) }
    }
}
