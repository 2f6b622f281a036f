/// What a whole-store download (``DocumentSyncManager/downloadWholeStore(from:)``, or a sync that
/// had to re-bootstrap) installed.
public struct WholeStoreDownload: Sendable, Equatable {
    /// The client whose unit was installed.
    public var client: SyncIdentifier
    /// The unit installed.
    public var unit: WholeStoreUnitName
    /// What the installation did, including the re-based unpushed local changes.
    public var installation: WholeStoreInstallation
}
