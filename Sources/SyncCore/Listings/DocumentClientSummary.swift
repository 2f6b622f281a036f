import Foundation

/// One client of a document, as listed by ``ApplicationSyncManager/clients(of:)``.
public struct DocumentClientSummary: Sendable, Equatable {
    /// The client.
    public var clientID: SyncIdentifier
    /// Its description from its device info (empty if that is missing).
    public var description: String
    /// When it last recorded a completed sync of this document (from its `RecentSyncs/` marker
    /// name): its last push, or a sync that pushed nothing at most its
    /// ``SyncConfiguration/lastSyncRecordInterval`` (one day by default) before its last one;
    /// `nil` if never.
    public var lastSyncDate: Date?
    /// When its newest complete whole store was taken (from the unit's name); `nil` if it has none.
    public var wholeStoreDate: Date?
    /// The number of its change sets currently in the document.
    public var changeSetCount: Int
}
