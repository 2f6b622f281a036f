import Foundation

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

    /// A format file for new remote data, of the current version unless `version` says otherwise.
    package init(encrypted: Bool, createdBy: SyncIdentifier, createdAt: Date, version: Int = Self.currentVersion) {
        format = Self.formatName
        self.version = version
        self.encrypted = encrypted
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

extension RemoteFormatFile {
    /// Format 2: each last-sync marker names its client's newest change set
    /// (``RecentSyncName/NewestSet``) and is written before that set is uploaded.
    var announcesNewestSets: Bool { version >= 2 }
    /// Format 2: the integrity key is `RecentSyncs/<key>.integritykey`, so one listing checks it
    /// and finds what is new (format 1: `IntegrityKey/<key>`).
    var keepsIntegrityKeyInRecentSyncs: Bool { version >= 2 }
    /// Format 2: change sets are compressed before the codec (see ``ChangeSetCompression``).
    var compressesChangeSets: Bool { version >= 2 }
}
