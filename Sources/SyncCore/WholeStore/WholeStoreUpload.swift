/// What ``DocumentSyncManager/uploadWholeStore(keepingHistoryFor:)`` did.
public struct WholeStoreUpload: Sendable, Equatable {
    /// The new unit.
    public var unit: WholeStoreUnitName
    /// Its manifest.
    package var manifest: WholeStoreManifest
    /// The older units of this client that were removed after the new one was complete.
    public var removedUnits: [WholeStoreUnitName]
    /// Why older units could not all be removed, if so. The new unit is complete and readers
    /// prefer it (it is the newest); the next upload removes what is left.
    public var cleanupFailure: String?

    /// How many bytes the unit's store and index take, compressed (before encryption, which adds
    /// a little), without its small manifest.
    public var uploadedBytes: Int64 { manifest.files.values.map(\.size).reduce(0, +) }
    /// How many change sets the store contains.
    public var appliedSetCount: Int { manifest.appliedSetCount }
}
