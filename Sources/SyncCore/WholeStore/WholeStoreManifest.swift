import Foundation

/// The content of `WholeStore/<client>/<unit>/manifest.json`, written **last**: its presence means
/// every other file of the unit is complete, and it lets a reader verify them before use.
///
/// Sizes and SHA-256 digests describe each file as it was before the codec (so they also catch a
/// decryption or decoding mix-up). The snapshot is stored compressed, as ``compression`` names
/// (``WholeStoreCompression``: `zstd` since version 3, `zlib` before), in the file that
/// compression names; ``uncompressedStore`` describes it once expanded. Encryption, when enabled,
/// is applied by the codec on top of the compressed bytes.
package struct WholeStoreManifest: Codable, Sendable, Equatable {
    /// The manifest's file name inside a unit.
    package static let manifestFileName = "manifest.json"
    /// The applied-change-set index's file name inside a unit (see ``WholeStoreIndex``).
    package static let indexFileName = "appliedSets.json"
    /// The version written by this build: 3 since the snapshot is compressed with zstd instead of
    /// zlib. Version 2 came when a store's cell clocks began to name their writers by number (the
    /// local schema's migration `rollingsync v6: writer numbers`). Builds skip a unit of a version
    /// above their own as one in a newer format; this build installs all three.
    package static let currentVersion = 3

    /// One file of the unit.
    package struct File: Codable, Sendable, Equatable {
        /// Its size in bytes (before the codec).
        package var size: Int64
        /// Its SHA-256 digest (before the codec), in lower-case hex.
        package var sha256: String

        /// Describes a file.
        package init(size: Int64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The manifest format version.
    package var version: Int
    /// The client that uploaded the unit.
    package var clientID: SyncIdentifier
    /// The unit's directory name (``WholeStoreUnitName``), repeated so a copied manifest is caught.
    package var unit: String
    /// The document's integrity key when the snapshot was taken; a unit with another key belongs
    /// to an earlier incarnation of the document and is ignored.
    package var integrityKey: String
    /// When the snapshot was taken, by the uploader's wall clock.
    package var createdAt: Date
    /// The snapshot's compression: a ``WholeStoreCompression`` raw value (`zstd` or `zlib`), kept
    /// as written so an unknown one is reported by name rather than failing to decode.
    package var compression: String
    /// The number of change sets the snapshot contains.
    package var appliedSetCount: Int
    /// The snapshot once expanded: the SQLite file.
    package var uncompressedStore: File
    /// The unit's files as stored, by name: the snapshot's (``storeCompression``'s
    /// ``WholeStoreCompression/storeFileName``) and ``indexFileName``.
    package var files: [String: File]

    /// The snapshot's compression; `nil` when ``compression`` names one this build does not know.
    package var storeCompression: WholeStoreCompression? { WholeStoreCompression(rawValue: compression) }

    /// Describes a unit.
    package init(
        clientID: SyncIdentifier, unit: WholeStoreUnitName, integrityKey: String, createdAt: Date,
        compression: WholeStoreCompression, appliedSetCount: Int, uncompressedStore: File, files: [String: File]
    ) {
        version = Self.currentVersion
        self.clientID = clientID
        self.unit = unit.directoryName
        self.integrityKey = integrityKey
        self.createdAt = createdAt
        self.compression = compression.rawValue
        self.appliedSetCount = appliedSetCount
        self.uncompressedStore = uncompressedStore
        self.files = files
    }
}

/// The content of `appliedSets.json`: the identifiers of every change set the unit's snapshot
/// contains, so vacuums and downloaders decide without downloading the store itself.
package struct WholeStoreIndex: Codable, Sendable, Equatable {
    /// The identifiers of the change sets the snapshot contains.
    package var appliedSetIDs: [String]

    /// Describes a snapshot's applied sets.
    package init(appliedSetIDs: [String]) {
        self.appliedSetIDs = appliedSetIDs
    }
}
