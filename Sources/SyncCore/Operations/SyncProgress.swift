/// One progress event of a sync, delivered through ``DocumentSyncManager/progressEvents()``.
public struct SyncProgress: Sendable, Equatable {
    /// The step a sync is in, in the order they happen.
    public enum Phase: String, Sendable, Equatable, CaseIterable {
        /// Registering the document (first sync, or after a reset).
        case registering
        /// Checking the integrity key and listing other clients' change sets.
        case listing
        /// Downloading and verifying change sets.
        case downloading
        /// Applying change sets to the local database.
        case applying
        /// Uploading the local pending changes.
        case pushing
        /// Writing the last-sync marker.
        case recording
        /// The sync ended (successfully or not).
        case finished
    }

    /// The current step.
    public var phase: Phase
    /// Items (change sets) done in this step.
    public var itemsDone: Int
    /// Items this step will handle, if known.
    public var itemsTotal: Int
    /// Bytes moved in this step.
    public var bytesDone: Int64
    /// Bytes this step will move, if known (0 when unknown).
    public var bytesTotal: Int64

    /// Creates an event.
    public init(phase: Phase, itemsDone: Int = 0, itemsTotal: Int = 0, bytesDone: Int64 = 0, bytesTotal: Int64 = 0) {
        self.phase = phase
        self.itemsDone = itemsDone
        self.itemsTotal = itemsTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
}
