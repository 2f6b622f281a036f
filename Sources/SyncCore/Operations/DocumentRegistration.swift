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
    /// The rows that predate this registration and that no change carried (0 when registering
    /// again): for a database that created the document, those its next sync uploads as a whole
    /// store; for one that joined it for the first time, those it logged as inserts, published by
    /// the next sync except where the document's newest whole store has the same key (the
    /// document's version is kept; Docs/Conflicts.md, "Joining with rows of its own").
    public var existingRows: Int
    /// Notices for the application (client removed, document reset).
    public var warnings: [SyncWarning]
}
