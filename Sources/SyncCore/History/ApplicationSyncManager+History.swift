import Foundation

extension ApplicationSyncManager {
    /// Checks a remote document against the rules of the remote format and reports every problem
    /// with what and where (see ``VerificationReport/Problem/Kind``): unreadable, truncated or
    /// misnamed change sets, sets that markers or records name but that are missing, whole stores
    /// that are incomplete, damaged or unusable, vacuumed history no whole store holds, markers of
    /// removed clients, directories of unknown clients, and files the format does not know. Also
    /// reports the moments the document can be restored to.
    ///
    /// Nothing is changed unless ``VerificationOptions/repair`` asks for the provably safe repairs
    /// (markers of removed clients, whole-store leftovers older than a day), each reported as
    /// ``VerificationReport/Problem/repaired``.
    /// - Parameter progress: receives ``SyncProgress/Phase/listing``, then
    ///   ``SyncProgress/Phase/verifying`` per change set with ``VerificationOptions/deep``.
    /// - Throws: ``SyncError/Code/notFound`` if the document does not exist; remote errors.
    public func verify(
        document documentID: SyncIdentifier, options: VerificationOptions = VerificationOptions(),
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> VerificationReport {
        let application = try await register()
        return try await HistoryVerifier(application: application, documentID: documentID, options: options, progress: progress).run()
    }

    /// The history of a remote document: one entry per change set, oldest first, with its client,
    /// time and the changes it holds per table (and with ``HistoryQuery/includeRows`` the rows and
    /// columns), filtered by `query`. Time and client filters are decided from names alone; each
    /// matching set is downloaded once and read one change at a time.
    /// - Throws: ``SyncError/Code/notFound`` if the document does not exist; remote errors.
    public func history(
        of documentID: SyncIdentifier, matching query: HistoryQuery = HistoryQuery(),
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> DocumentHistory {
        let application = try await register()
        return try await HistoryLogReader(application: application, documentID: documentID, query: query, progress: progress).run()
    }

    /// Rebuilds a remote document as it was at `point` into a **new database file**: the newest
    /// whole store not newer than the point, then every change set up to the point that it does
    /// not contain (see ``RestorePoint`` for what a point includes). The file is an unbound
    /// database like one from ``downloadWholeStore(of:from:to:)``: open a ``LocalStore`` on it to
    /// read it, or sync it as a new client.
    ///
    /// When no whole store is old enough and vacuum never removed a set, the document is replayed
    /// from its first change set into an empty database with the schema of `schemaSource` (or of
    /// the newest whole store).
    /// - Parameters:
    ///   - destination: the new file; it must not exist (nothing is overwritten, and nothing is
    ///     left there if the restore fails).
    ///   - schemaSource: a database of the application whose schema a replay from the beginning
    ///     uses; its data is not read.
    /// - Throws: ``SyncError/Code/historyMissing`` when vacuum removed history the point needs
    ///   (the message names the earliest restorable moment), ``SyncError/Code/notFound`` for an
    ///   unknown document or change set, ``SyncError/Code/corruptRemoteData`` if a set or store
    ///   the restore needs is damaged, ``SyncError/Code/local`` if `destination` exists or cannot
    ///   be written.
    @discardableResult
    public func restore(
        document documentID: SyncIdentifier, to destination: URL, at point: RestorePoint, schemaFrom schemaSource: LocalStore? = nil,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws -> RestoreReport {
        let application = try await register()
        return try await PointInTimeRestore(
            application: application, documentID: documentID, point: point, destination: destination, schemaSource: schemaSource,
            progress: progress
        ).run()
    }
}
