import Foundation

/// The content of `<appID>/format.json`: which format wrote the application's remote data.
///
/// It stays readable without any key (it is written as plain JSON, never through the codec), so
/// a client can refuse a newer format, or learn that the data is encrypted, before anything else.
public struct RemoteFormatFile: Codable, Sendable, Equatable {
    /// The format version this build writes and reads.
    public static let currentVersion = 1
    /// The value of ``format`` in RollingSync's format files.
    public static let formatName = "RollingSync"

    /// Always `"RollingSync"`.
    public var format: String
    /// The format version; a client refuses a version above ``currentVersion``.
    public var version: Int
    /// True if every other file is encrypted (see Docs/RemoteFormat.md).
    public var encrypted: Bool
    /// The client that created the application's remote data.
    public var createdBy: SyncIdentifier
    /// When it was created.
    public var createdAt: Date

    /// A format file for new remote data, of the current version unless `version` says otherwise.
    public init(encrypted: Bool, createdBy: SyncIdentifier, createdAt: Date, version: Int = Self.currentVersion) {
        format = Self.formatName
        self.version = version
        self.encrypted = encrypted
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}
