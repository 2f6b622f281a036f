import Foundation
import RemoteProtocol

/// The content of `<appID>/format.json`: which format wrote the application's remote data.
///
/// It stays readable without any key (it is written as plain JSON, never through the codec), so
/// a client can refuse a newer format, or learn that the data is encrypted, before anything else.
package struct RemoteFormatFile: Codable, Sendable, Equatable {
    /// The format version this build writes for new applications; it reads this and every older
    /// version (see Docs/RemoteFormat.md for what each adds).
    package static let currentVersion = 2
    /// The value of ``format`` in RollingSync's format files.
    package static let formatName = "RollingSync"

    /// Always `"RollingSync"`.
    package var format: String
    /// The format version; a client refuses a version above ``currentVersion``.
    package var version: Int
    /// True if every other file is encrypted (see Docs/RemoteFormat.md).
    package var encrypted: Bool
    /// The client that created the application's remote data.
    package var createdBy: SyncIdentifier
    /// When it was created.
    package var createdAt: Date
    /// For encrypted data, the id of the data key everything is encrypted with (32 hex digits):
    /// the key file to read is the newest of that key, whatever other key files a client that lost
    /// the race to create the application left behind for a moment. Absent in files written
    /// before it existed (then the newest key file is the one).
    package var dataKeyID: String?
    /// The version the application had before ``ApplicationSyncManager/upgradeFormat()`` moved it
    /// to ``version``; absent for an application created in its format.
    package var upgradedFrom: Int?

    /// A format file for new remote data, of the current version unless `version` says otherwise.
    package init(
        encrypted: Bool, dataKeyID: String? = nil, createdBy: SyncIdentifier, createdAt: Date, version: Int = Self.currentVersion
    ) {
        format = Self.formatName
        self.version = version
        self.encrypted = encrypted
        self.dataKeyID = dataKeyID
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

extension RemoteFormatFile {
    /// Reads `format.json` at `path` through `remote` (a plain one: the file is never encoded);
    /// `nil` if it does not exist. The version is checked before the rest is decoded, so a newer
    /// format whose fields changed is still refused as newer (see ``VersionedFile``).
    static func read(at path: RemotePath, from remote: CodedRemote) async throws -> RemoteFormatFile? {
        guard let data = try await remote.readIfPresent(path) else {
            return nil
        }
        return try VersionedFile.decode(RemoteFormatFile.self, from: data, at: path, expected: formatName, readable: currentVersion)
    }
}

/// What each format version does differently: the one place that tells formats apart. Every
/// other file asks these questions (or the owners of the answers: ``IntegrityKeyFile`` for where
/// the key is, ``DocumentLayout/skeleton(format:)`` for the directories) and never compares
/// versions. Formats differ by a few independent capabilities rather than by whole behaviours, so
/// a format 3 adds or changes answers here instead of repeating the shared ones in a new type.
extension RemoteFormatFile {
    /// Format 2: each last-sync marker names its client's newest change set
    /// (``RecentSyncName/NewestSet``) and is written before that set is uploaded.
    var announcesNewestSets: Bool { version >= 2 }
    /// Format 2: the integrity key is `RecentSyncs/<key>.integritykey`, so one listing checks it
    /// and finds what is new (format 1: `IntegrityKey/<key>`).
    var keepsIntegrityKeyInRecentSyncs: Bool { version >= 2 }
    /// Format 2: change sets are compressed before the codec (see ``ChangeSetCompression``).
    var compressesChangeSets: Bool { version >= 2 }
    /// Format 2 upgraded from 1: a document may have its integrity key only in format 1's place,
    /// `IntegrityKey/<key>`, if a client that had not yet seen the upgrade created it (see
    /// ``IntegrityKeyFile``).
    var mayHoldFormat1IntegrityKeys: Bool { keepsIntegrityKeyInRecentSyncs && (upgradedFrom ?? version) < 2 }
}
