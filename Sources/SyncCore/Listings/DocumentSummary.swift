import Foundation

/// One document of an application, as listed by ``ApplicationSyncManager/documents()``.
public struct DocumentSummary: Sendable, Equatable {
    /// The document's identifier.
    public var documentID: SyncIdentifier
    /// Its description, as given by the client that created it.
    public var description: String
    /// Its user info.
    public var userInfo: [String: String]
    /// The client that created it, and when.
    public var createdBy: SyncIdentifier
    /// When it was created (by the creator's clock).
    public var createdAt: Date
    /// The most recent sync any client recorded (from the names in `RecentSyncs/`; see
    /// ``DocumentClientSummary/lastSyncDate`` for how late it may be); `nil` if no client has
    /// completed a sync yet.
    public var lastSyncDate: Date?
}
