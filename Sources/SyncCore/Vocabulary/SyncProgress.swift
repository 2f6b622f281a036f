/// One progress event of a sync or of a whole-store transfer, delivered through
/// ``DocumentSyncManager/progressEvents()``.
///
/// Events carry only a phase and counts, never a path, a name or a secret. Within one step the
/// counts only grow and the last event of a step that completes has `itemsDone == itemsTotal` and
/// `bytesDone == bytesTotal` (when the totals are known).
///
/// A whole-store upload (``DocumentSyncManager/uploadWholeStore(keepingHistoryFor:)``) first runs a sync (its
/// phases, ending with ``Phase/finished``), then ``Phase/snapshotting``, ``Phase/compressing``
/// (bytes of the snapshot, per 256 KiB chunk) and ``Phase/uploadingStore`` (items: the unit's
/// files, the manifest last; bytes: the compressed store and its index, counted per file).
/// A whole-store download (``DocumentSyncManager/downloadWholeStore(from:)``) reports,
/// for each unit it tries, ``Phase/downloadingStore`` (items and bytes
/// of the index and the compressed store, per file), ``Phase/decompressing`` (compressed bytes,
/// per chunk), ``Phase/verifying`` and ``Phase/installing``, then the tail sync's phases; a unit
/// that fails verification is followed by the next older one's events, from zero again.
public struct SyncProgress: Sendable, Equatable {
    /// The step a sync or a whole-store transfer is in; the steps of a sync, then those of a
    /// whole-store transfer, are listed in the order they happen. Later releases may add steps: a
    /// `switch` needs an `@unknown default:`.
    @nonexhaustive
    public enum Phase: String, Sendable, Equatable, CaseIterable {
        /// Registering the document (first sync, or after a reset).
        case registering
        /// Checking the integrity key and listing other clients' change sets.
        case listing
        /// Downloading and verifying change sets.
        case downloading
        /// Applying change sets to the local database.
        case applying
        /// Writing the last-sync marker (before the upload it announces).
        case recording
        /// Uploading the local pending changes.
        case pushing
        /// Whole-store upload: copying the local database to a consistent snapshot file.
        case snapshotting
        /// Whole-store upload: compressing the snapshot (bytes of the snapshot read).
        case compressing
        /// Whole-store upload: uploading the unit's files (items: files; bytes: their sizes).
        case uploadingStore
        /// Whole-store download: downloading a unit's files, each checked against its manifest.
        case downloadingStore
        /// Whole-store download: expanding the compressed store (bytes of it read).
        case decompressing
        /// Whole-store download: checking the expanded store (SHA-256, SQLite, applied sets).
        case verifying
        /// Whole-store download: installing the store in the local database.
        case installing
        /// The sync ended (successfully or not).
        case finished

        /// Whether the phase belongs to a whole-store transfer (its items are files, not change sets).
        public var isWholeStoreTransfer: Bool {
            switch self {
            case .snapshotting, .compressing, .uploadingStore, .downloadingStore, .decompressing, .verifying, .installing: true
            case .registering, .listing, .downloading, .applying, .pushing, .recording, .finished: false
            }
        }
    }

    /// The current step.
    public var phase: Phase
    /// Items (change sets, or files of a whole-store unit) done in this step.
    public var itemsDone: Int
    /// Items this step will handle, if known.
    public var itemsTotal: Int
    /// Bytes moved in this step.
    public var bytesDone: Int64
    /// Bytes this step will move, if known (0 when unknown).
    public var bytesTotal: Int64

    /// Creates an event.
    package init(phase: Phase, itemsDone: Int = 0, itemsTotal: Int = 0, bytesDone: Int64 = 0, bytesTotal: Int64 = 0) {
        self.phase = phase
        self.itemsDone = itemsDone
        self.itemsTotal = itemsTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
}
