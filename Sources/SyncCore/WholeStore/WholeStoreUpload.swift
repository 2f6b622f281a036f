/// What ``DocumentSyncManager/uploadWholeStore()`` did.
public struct WholeStoreUpload: Sendable, Equatable {
    /// The new unit.
    public var unit: WholeStoreUnitName
    /// Its manifest.
    public var manifest: WholeStoreManifest
    /// The older units of this client that were removed after the new one was complete.
    public var removedUnits: [WholeStoreUnitName]
}
