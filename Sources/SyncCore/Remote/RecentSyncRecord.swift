import Foundation

/// The content of a last-sync marker `RecentSyncs/<client>@<time>.recentsync`.
///
/// The name alone answers "when did this client last sync" (see ``RecentSyncName``). The content
/// adds, for each other client, the newest of its change sets this client had applied, which is
/// what a vacuum needs to know which sets every client has seen.
package struct RecentSyncRecord: Codable, Sendable, Equatable {
    /// The client that synced.
    package var clientID: SyncIdentifier
    /// When it synced.
    package var syncedAt: Date
    /// For each other client, the file name of the newest of its change sets applied here
    /// (sets of one client are applied in name order, so every older one is applied too).
    package var appliedThrough: [String: String]

    /// Describes a sync.
    package init(clientID: SyncIdentifier, syncedAt: Date, appliedThrough: [String: String]) {
        self.clientID = clientID
        self.syncedAt = syncedAt
        self.appliedThrough = appliedThrough
    }
}
