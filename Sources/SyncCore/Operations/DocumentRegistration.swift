/// The outcome of registering a local database with a remote document.
public struct DocumentRegistration: Sendable, Equatable {
    /// The document.
    public var documentID: SyncIdentifier
    /// This client.
    public var clientID: SyncIdentifier
    /// The document's integrity key, now adopted by the local database.
    public var integrityKey: String
    /// True if this registration created the document's remote data.
    public var createdDocument: Bool
    /// True if it recreated a document another client had deleted.
    public var recreatedDeletedDocument: Bool
    /// The rows the synced tables held when this database first joined a document another client
    /// created (0 otherwise): they are logged as inserts and published by the next sync, except
    /// those whose key the document's newest whole store already has, which take the document's
    /// version (Docs/Conflicts.md, "Joining with rows of its own").
    public var publishedExistingRows: Int
    /// Notices for the application (client removed, document reset).
    public var warnings: [SyncWarning]
}
