import Foundation
import RemoteProtocol

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
    /// The newest remote format the build that wrote the record reads (``RemoteFormatFile/currentVersion``);
    /// absent in records written before the field existed, whose client is taken to read format 1
    /// only (some of those builds read format 2; waiting for their next sync is the safe side). A format
    /// upgrade waits until every client's newest record reads the new format (see
    /// ``ApplicationSyncManager/upgradeFormat()``).
    package var readsFormat: Int?

    /// Describes a sync by this build.
    package init(clientID: SyncIdentifier, syncedAt: Date, appliedThrough: [String: String], readsFormat: Int? = RemoteFormatFile.currentVersion) {
        self.clientID = clientID
        self.syncedAt = syncedAt
        self.appliedThrough = appliedThrough
        self.readsFormat = readsFormat
    }
}

extension RecentSyncRecord {
    /// The record at `path`; `nil` if it is missing or cannot be read (damaged, or written by a
    /// newer format). Remote failures are thrown.
    static func readable(at path: RemotePath, from remote: CodedRemote) async throws -> RecentSyncRecord? {
        do {
            return try await remote.readJSONIfPresent(RecentSyncRecord.self, from: path)
        } catch let error as SyncError where error.code == .corruptRemoteData {
            return nil
        }
    }
}
