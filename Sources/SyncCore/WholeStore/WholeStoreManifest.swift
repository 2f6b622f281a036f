import Foundation

/// The content of `WholeStore/<client>/<unit>/manifest.json`, written **last**: its presence means
/// every other file of the unit is complete, and it lets a reader verify them before use.
///
/// Sizes and SHA-256 digests describe each file as it was before the codec (so they also catch a
/// decryption or decoding mix-up). The snapshot is stored zlib-compressed (RFC 1950, `compression`
/// is `zlib`); ``uncompressedStore`` describes it once expanded. Encryption, when enabled, is
/// applied by the codec on top of the compressed bytes.
public struct WholeStoreManifest: Codable, Sendable, Equatable {
    /// The manifest's file name inside a unit.
    public static let manifestFileName = "manifest.json"
    /// The compressed snapshot's file name inside a unit.
    public static let storeFileName = "store.sqlite.zlib"
    /// The applied-change-set index's file name inside a unit (see ``WholeStoreIndex``).
    public static let indexFileName = "appliedSets.json"
    /// The ``compression`` value of a zlib-compressed store.
    public static let zlibCompression = "zlib"
    /// The version written by this build.
    public static let currentVersion = 1

    /// One file of the unit.
    public struct File: Codable, Sendable, Equatable {
        /// Its size in bytes (before the codec).
        public var size: Int64
        /// Its SHA-256 digest (before the codec), in lower-case hex.
        public var sha256: String

        /// Describes a file.
        public init(size: Int64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The manifest format version.
    public var version: Int
    /// The client that uploaded the unit.
    public var clientID: SyncIdentifier
    /// The unit's directory name (``WholeStoreUnitName``), repeated so a copied manifest is caught.
    public var unit: String
    /// The document's integrity key when the snapshot was taken; a unit with another key belongs
    /// to an earlier incarnation of the document and is ignored.
    public var integrityKey: String
    /// When the snapshot was taken, by the uploader's wall clock.
    public var createdAt: Date
    /// The compression of ``storeFileName``: `zlib`, the only one this version writes and reads.
    public var compression: String
    /// The snapshot once expanded: the SQLite file.
    /// The number of change sets the snapshot contains.
    public var appliedSetCount: Int
    public var uncompressedStore: File
    /// The unit's files as stored, by name: ``storeFileName`` and ``indexFileName``.
    public var files: [String: File]

    /// Describes a unit.
    public init(
        clientID: SyncIdentifier, unit: WholeStoreUnitName, integrityKey: String, createdAt: Date,
        appliedSetCount: Int, uncompressedStore: File, files: [String: File]
    ) {
        version = Self.currentVersion
        self.clientID = clientID
        self.unit = unit.directoryName
        self.integrityKey = integrityKey
        self.createdAt = createdAt
        compression = Self.zlibCompression
        self.appliedSetCount = appliedSetCount
        self.uncompressedStore = uncompressedStore
        self.files = files
    }
}

/// The content of `appliedSets.json`: the identifiers of every change set the unit's snapshot
/// contains, so vacuums and downloaders decide without downloading the store itself.
public struct WholeStoreIndex: Codable, Sendable, Equatable {
    /// The identifiers of the change sets the snapshot contains.
    public var appliedSetIDs: [String]

    /// Describes a snapshot's applied sets.
    public init(appliedSetIDs: [String]) {
        self.appliedSetIDs = appliedSetIDs
    }
}
