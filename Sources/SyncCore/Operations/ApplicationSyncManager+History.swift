import Foundation

extension ApplicationSyncManager {
    /// Checks a remote document against the rules of the remote format and reports every finding
    /// with what and where (see ``VerificationReport/Problem/Kind``): unreadable, truncated or
    /// misnamed change sets, sets that markers or records name but that are missing, whole stores
    /// that are incomplete, damaged or unusable, vacuumed history no whole store holds, markers of
    /// removed clients, directories of unknown clients, temporary files of interrupted uploads,
    /// and files the format does not know. What is harmless or passing (an upload in flight, an
    /// unknown file) is a ``VerificationReport/Problem/Severity/notice``. Also reports the moments
    /// the document can be restored to.
    ///
    /// Nothing is changed unless ``VerificationOptions/repair`` asks for the provably safe repairs
    /// (markers of removed clients; whole-store uploads and temporary files not written for a
    /// day), each reported as ``VerificationReport/Problem/repaired``. It only reads, except for
    /// the repairs asked for: it neither creates the application nor registers this client.
    /// - Parameters:
    ///   - documentID: the document to check.
    ///   - options: how deep to check, and whether to repair.
    ///   - progress: receives ``SyncProgress/Phase/listing``, then
    ///     ``SyncProgress/Phase/verifying`` per change set with ``VerificationOptions/deep``.
    /// - Throws: ``SyncError/Code/notFound`` if the application or the document does not exist;
    ///   remote errors.
    public func verify(
        document documentID: SyncIdentifier, options: VerificationOptions = VerificationOptions(),
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> VerificationReport {
        let application = try await openForReading()
        return try await HistoryVerifier(application: application, documentID: documentID, options: options, progress: progress).run()
    }

    /// The history of a remote document: one entry per change set, oldest first, with its client,
    /// time and the changes it holds per table (and with ``HistoryQuery/includeRows`` the rows and
    /// columns), filtered by `query`. Time and client filters are decided from names alone; each
    /// matching set is downloaded once and read one change at a time. It only reads.
    /// - Throws: ``SyncError/Code/notFound`` if the application or the document does not exist;
    ///   remote errors.
    public func history(
        of documentID: SyncIdentifier, matching query: HistoryQuery = HistoryQuery(),
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> DocumentHistory {
        let application = try await openForReading()
        return try await HistoryLogReader(application: application, documentID: documentID, query: query, progress: progress).run()
    }

    /// Rebuilds a remote document as it was at `point` into a **new database file**: the newest
    /// whole store not newer than the point, then every change set up to the point that it does
    /// not contain (see ``RestorePoint`` for what a point includes), applied as a sync applies
    /// them. A point is a cut by clock: a set an offline client pushed later, with older clocks,
    /// belongs to the moments its changes were made at. The file is an unbound
    /// database like one from ``downloadWholeStore(of:from:to:configuration:)``: open a ``LocalStore`` on it to
    /// read it, or sync it as a new client.
    ///
    /// When no whole store is old enough and no history left the directories (see
    /// ``VerificationReport/restorableRange``), the document is replayed from its first change
    /// set into an empty database with the schema of `schemaSource` (or of the newest whole
    /// store). A whole store older than a schema migration first gains the tables and columns of
    /// `schemaSource` it lacks.
    /// - Parameters:
    ///   - documentID: the document to restore.
    ///   - destination: the new file; it must not exist (nothing is overwritten, and nothing is
    ///     left there if the restore fails).
    ///   - point: the moment, or the change set to stop before.
    ///   - progress: receives the phases of the downloads and of the replay.
    ///   - schemaSource: a database of the application whose schema the restore uses (for a
    ///     replay from the beginning, and to bring an older whole store up to date); its data is
    ///     not read. Its GRDB configuration is the one the restored file is opened with, so a
    ///     schema with the application's own collations or SQL functions needs it.
    /// - Throws: ``SyncError/Code/historyMissing`` when history the point needs was removed (by a
    ///   vacuum, or with its client; the message names the earliest restorable moment),
    ///   ``SyncError/Code/upgradeRequired`` if a set needs a column no schema at hand has, ``SyncError/Code/notFound`` for an
    ///   unknown document or change set, ``SyncError/Code/corruptRemoteData`` if a set or store
    ///   the restore needs is damaged, ``SyncError/Code/local`` if `destination` exists or cannot
    ///   be written.
    @discardableResult
    public func restore(
        document documentID: SyncIdentifier, to destination: URL, at point: RestorePoint, schemaFrom schemaSource: LocalStore? = nil,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> RestoreReport {
        let application = try await openForReading()
        return try await PointInTimeRestore(
            application: application, documentID: documentID, point: point, destination: destination, schemaSource: schemaSource,
            progress: progress
        ).run()
    }
}
