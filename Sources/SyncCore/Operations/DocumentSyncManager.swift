import Foundation
import Logging
import GRDB
import RemoteProtocol

/// Keeps one local database in sync with one remote document of an application.
///
/// ```swift
/// let manager = try DocumentSyncManager(application: app, documentID: doc, localStore: store)
/// let report = try await manager.synchronize()
/// ```
///
/// - **Delayed registration**: creating the manager binds the database to the document locally,
///   with no remote call. Changes to synced tables are captured from then on (whether or not the
///   remote can be reached); the first ``synchronize()`` registers (or call ``register()``) and
///   pushes everything captured.
/// - **One operation at a time**: registrations and syncs of one manager run one after another.
///   A ``synchronize()`` requested while another sync waits to start joins it; one requested
///   while a sync runs starts a single follow-up sync after it, shared by every such request. So
///   changes made during a sync are always picked up, and bursts of requests cost one sync.
///   Because a sync may be shared by several callers, cancelling one caller's task does not
///   cancel the sync it waits for.
/// - **Failures**: a sync that fails at any step can simply be run again: applied sets are
///   recorded atomically with their changes, and pushed sets are settled on the next run (see
///   ``SyncError/isRetryable`` for whether retrying soon may help).
/// - **Decisions** come from the ``DocumentSyncDelegate`` (defaults: create missing documents,
///   re-register after a reset keeping local data, last writer wins).
/// - **Progress**: ``progressEvents()``; each sync returns a ``SyncReport``.
/// - **Whole stores and vacuum**: ``uploadWholeStore(keepingHistoryFor:)``, ``downloadWholeStore(from:)`` (the
///   bootstrap of a new client) and ``vacuum(_:)`` run as operations of the same queue. A sync
///   installs a whole store by itself when it must (after a vacuum removed history it needs, or
///   after this client was removed or the document reset), never dropping unpushed changes; see
///   ``SyncReport/wholeStoreInstalled``. ``AutomaticSync`` syncs by itself after local changes
///   and when other clients sync.
public actor DocumentSyncManager {
    /// The document.
    public nonisolated let documentID: SyncIdentifier
    /// The local database.
    public nonisolated let localStore: LocalStore
    /// The application the document belongs to: its listings, client and document removal, and
    /// whole-store operations on other documents.
    public nonisolated let application: ApplicationSyncManager
    private let documentDescription: String
    /// How old this client's last-sync marker may get before a sync that pushes nothing rewrites
    /// it (see ``SyncConfiguration/lastSyncRecordInterval``).
    private let lastSyncRecordInterval: Duration
    let delegate: any DocumentSyncDelegate
    let state: LocalSyncState
    let broadcaster = ProgressBroadcaster()
    /// This manager's claim on its database (one manager per database).
    private let claim: DatabaseClaim
    /// True once ``close()`` stopped the automatic sync: operations are refused from then on.
    private var closed = false
    /// The running or finished ``close()``, which later calls wait for.
    private var closing: Task<Void, Never>?
    /// The store ``open(database:remote:secrets:registry:configuration:)`` opened from a URL,
    /// which ``close()`` closes (a store the app passed in is the app's to close).
    private var ownedStore: (any RemoteStore)?
    private var lastOperation: Task<Void, Never>?
    private var queuedSync: (id: Int, task: Task<SyncReport, any Error>)?
    private var nextSyncID = 0
    /// Requests waiting for the queued sync to start (observable by tests of coalescing).
    private(set) var waitingSyncRequests = 0
    /// The automatic sync ``open(database:store:configuration:)`` started
    /// (``SyncConfiguration/automaticSync``); `nil` otherwise.
    public private(set) var automaticSync: AutomaticSync?

    /// Binds `localStore`'s database to `documentID` of `application` (locally only; see
    /// "Delayed registration" above).
    ///
    /// - Parameters:
    ///   - application: the application the document belongs to.
    ///   - documentID: the document.
    ///   - localStore: the database's local store, with the synced tables registered.
    ///   - documentDescription: stored in `documentInfo.json` if this client creates the document.
    ///   - delegate: the application's decisions; `nil` takes every default.
    ///   - lastSyncRecordInterval: how stale a sync that pushes nothing may leave this client's
    ///     last-sync record (see ``SyncConfiguration/lastSyncRecordInterval``); one day by default.
    /// - Throws: ``SyncError/Code/notRegistered`` if the database is already bound to another
    ///   document or another client identifier (a database syncs one document as one client);
    ///   ``SyncError/Code/alreadyOpen`` if another manager of this process syncs the same database
    ///   (the same file, through any connection) and was neither released nor closed;
    ///   ``SyncError/Code/local`` if RollingSync's tables cannot be created.
    public init(
        application: ApplicationSyncManager,
        documentID: SyncIdentifier,
        localStore: LocalStore,
        documentDescription: String = "",
        delegate: (any DocumentSyncDelegate)? = nil,
        lastSyncRecordInterval: Duration = SyncConfiguration.defaultLastSyncRecordInterval
    ) throws {
        try self.init(
            application: application, documentID: documentID, localStore: localStore, documentDescription: documentDescription,
            delegate: delegate, lastSyncRecordInterval: lastSyncRecordInterval, claim: nil
        )
    }

    /// The initializer above, with the database's `claim` taken already (``open(database:store:configuration:)``
    /// takes it before it changes anything), or taken here when `nil`.
    init(
        application: ApplicationSyncManager,
        documentID: SyncIdentifier,
        localStore: LocalStore,
        documentDescription: String,
        delegate: (any DocumentSyncDelegate)?,
        lastSyncRecordInterval: Duration,
        claim: DatabaseClaim?
    ) throws {
        self.application = application
        self.documentID = documentID
        self.localStore = localStore
        self.documentDescription = documentDescription
        self.lastSyncRecordInterval = lastSyncRecordInterval
        self.delegate = delegate ?? DefaultDocumentSyncDelegate()
        state = LocalSyncState(writer: localStore.writer)
        let clientID = application.device.clientID
        let bound = try state.bind(documentID: documentID.rawValue, clientID: clientID.rawValue)
        guard bound.documentID == documentID.rawValue, bound.clientID == clientID.rawValue else {
            throw SyncError(
                .notRegistered,
                "this database syncs document \(bound.documentID) as client \(bound.clientID); "
                    + "it cannot also sync document \(documentID) as client \(clientID)"
            )
        }
        self.claim = try claim ?? DatabaseClaim(localStore.writer)
    }

    deinit {
        broadcaster.finish()
        if let automaticSync {
            Task { await automaticSync.managerReleased() }
        }
    }

    /// True once a registration with the remote document completed.
    public var isRegistered: Bool {
        get throws { try state.registration()?.isRegistered ?? false }
    }

    /// A stream of the progress events of every later sync and whole-store transfer (see
    /// ``SyncProgress``). Any number of streams may be open;
    /// each ends when the manager is released. Events are dropped (oldest first) for a reader that
    /// falls far behind, never blocking a sync.
    public nonisolated func progressEvents() -> AsyncStream<SyncProgress> {
        broadcaster.subscribe()
    }

    /// Registers the application (if needed) and the document, creating the document if it is
    /// missing and the delegate agrees. Safe to call again: it re-checks and adopts the current
    /// state. Syncs register by themselves; call this to register early or to learn the outcome.
    public func register() async throws -> DocumentRegistration {
        try await exclusively {
            let application = try await self.application.register()
            return try await self.registerDocument(application, through: application.remote)
        }
    }

    /// Synchronizes now (see the type's documentation for coalescing), registering first if
    /// needed.
    /// - Returns: what the sync did.
    /// - Throws: ``SyncError``: ``SyncError/Code/remote`` (retry later), ``SyncError/Code/local``,
    ///   ``SyncError/Code/declined``, ``SyncError/Code/clientRemoved`` or
    ///   ``SyncError/Code/integrityKeyMismatch`` when the delegate chose to stop, or the
    ///   registration errors of ``ApplicationSyncManager/register()``.
    public func synchronize() async throws -> SyncReport {
        try refuseIfClosed()
        waitingSyncRequests += 1
        if let queuedSync {
            return try await queuedSync.task.value
        }
        let id = nextSyncID
        nextSyncID += 1
        let task = chained { try await self.startSync(id) }
        queuedSync = (id, task)
        return try await task.value
    }

    private func startSync(_ id: Int) async throws -> SyncReport {
        if queuedSync?.id == id {
            queuedSync = nil
            waitingSyncRequests = 0
        }
        return try await performSync()
    }

    /// Refuses new operations (they throw ``SyncError/Code/closed``), stops the automatic sync
    /// (if ``open(database:store:configuration:)`` started one), lets the operations asked for
    /// before it end, closes the store `open` made from a URL, and releases the database, so that
    /// another manager may open it. Calling it again waits for the first call to end. Do not await
    /// it from inside an operation of this manager (a delegate's callback): it waits for that
    /// operation.
    ///
    /// A manager that is simply released releases its database too, and its automatic sync ends
    /// (it holds the manager weakly), but only `close()` says when.
    public func close() async {
        if let closing { return await closing.value }
        let task = Task { await self.shutDown() }
        closing = task
        await task.value
    }

    private func shutDown() async {
        closed = true
        await automaticSync?.stop()
        automaticSync = nil
        await lastOperation?.value
        await ownedStore?.close()
        ownedStore = nil
        claim.release()
    }

    /// Throws ``SyncError/Code/closed`` once ``close()`` stopped accepting operations.
    func refuseIfClosed() throws {
        guard !closed else {
            throw SyncError(.closed, "this manager of document \(documentID) was closed; open a new one to sync again")
        }
    }

    /// Starts the automatic sync ``automaticSync`` (holding this manager weakly), and makes
    /// `store` this manager's to close, if given.
    func finishOpening(automaticSync configuration: AutomaticSyncConfiguration?, owning store: (any RemoteStore)?) async {
        ownedStore = store
        guard let configuration else { return }
        let automatic = AutomaticSync(ownedBy: self, configuration: configuration)
        automaticSync = automatic
        await automatic.start()
    }

    /// Runs `body` after every operation started before it has ended.
    /// - Throws: ``SyncError/Code/closed`` once ``close()`` stopped accepting operations.
    func exclusively<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try refuseIfClosed()
        return try await chained(body).value
    }

    /// Puts `body` at the end of the queue of operations at once (before this call returns, so
    /// that ``close()`` waits for it): it starts after every operation queued before it.
    private func chained<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) -> Task<Result, any Error> {
        let previous = lastOperation
        let task = Task<Result, any Error> {
            await previous?.value
            return try await body()
        }
        lastOperation = Task { _ = try? await task.value }
        return task
    }

    /// A sync, logged: its start, the schema changes it followed, and how it ended (see
    /// ``performUnloggedSync(recording:uploadingCreationStore:)``). With `recording`, the sync writes this client's
    /// last-sync record even if it pushes nothing and the record is younger than
    /// ``SyncConfiguration/lastSyncRecordInterval``. Without `uploadingCreationStore`, the whole
    /// store a creation from data owes is left to the caller, which uploads one itself.
    func performSync(recording: Bool = false, uploadingCreationStore: Bool = true) async throws -> SyncReport {
        let logger = application.logger
        let start = ContinuousClock.now
        logger.debug("sync started", metadata: ["document": "\(documentID)"])
        do {
            let report = try await performUnloggedSync(recording: recording, uploadingCreationStore: uploadingCreationStore)
            for change in report.schemaChanges {
                logger.notice("schema change followed", metadata: ["document": "\(documentID)", "change": "\(change)"])
            }
            logger.debug("sync finished", metadata: [
                "document": "\(documentID)", "appliedSets": "\(report.appliedSets)", "appliedChanges": "\(report.appliedChanges)",
                "pushedChanges": "\(report.pushedChanges)", "conflicts": "\(report.conflicts.count)",
                "warnings": "\(report.warnings.count)", "requests": "\(report.requests)",
                "retriedRequests": "\(report.retriedRequests)", "ms": "\((ContinuousClock.now - start).wholeMilliseconds)",
            ])
            return report
        } catch {
            logger.warning("sync failed", metadata: ["document": "\(documentID)", "error": "\(error)"])
            throw error
        }
    }

    private func performUnloggedSync(recording: Bool, uploadingCreationStore: Bool) async throws -> SyncReport {
        var report = SyncReport()
        defer { broadcaster.send(SyncProgress(phase: .finished)) }
        var application = try await self.application.register()
        do {
            let localStore = localStore
            report.schemaChanges = try await localStore.perform { try localStore.refreshSchema() }
        } catch {
            throw SyncError(.local, "the schema of the synced tables cannot be followed: \(error)", underlying: error)
        }
        let counter = CountingRemoteStore(application.remote.store, logger: self.application.logger)
        var remote = application.remote.replacingStore(counter)
        var local = try state.registration()
        // A document found reset is registered again, once per reset; a second reset within the
        // same sync is reported rather than chased.
        for _ in 0..<3 {
            if local?.isRegistered != true {
                broadcaster.send(SyncProgress(phase: .registering))
                let registration = try await registerDocument(application, through: remote)
                report.warnings += registration.warnings
                if registration.needsWholeStore {
                    report.recordInstalled(try await installWholeStore(from: nil, registration.integrityKey, application, remote))
                }
                local = try state.registration()
            }
            // A first join starts from the document's newest whole store, where the rows this
            // database held before it yield to the document's version of the same key.
            if let joining = local, joining.joinedAt != nil, let integrityKey = joining.integrityKey {
                if let installed = try await installWholeStore(from: nil, integrityKey, application, remote) {
                    report.recordInstalled(installed)
                } else {
                    try state.finishJoining()
                }
                local = try state.registration()
            }
            guard let registration = local, let integrityKey = registration.integrityKey else {
                throw SyncError(.notRegistered, "the registration of document \(documentID) was not recorded in the database")
            }
            let synchronizer = Synchronizer(
                remote: remote,
                layout: application.layout.document(documentID),
                format: application.format,
                clientID: application.clientID,
                integrityKey: integrityKey,
                recentSyncMarkers: registration.recentSyncMarkers,
                lastSyncRecordInterval: recording ? .zero : lastSyncRecordInterval,
                includeOwnSets: registration.needsOwnSets,
                localStore: localStore,
                state: state,
                resolver: delegate.conflictResolver,
                logger: self.application.logger,
                progress: { [broadcaster] in broadcaster.send($0) }
            )
            switch try await synchronizer.run(into: &report) {
            case .completed:
                // A document (re)created from data (rows that predate it, the history of a document
                // this database synced before): no change set carries it, a whole store does.
                if uploadingCreationStore, try state.registration()?.uploadsWholeStore == true {
                    report.wholeStoreUploaded = try await uploadSnapshot(application, integrityKey, remote)
                }
                report.finishedAt = Date()
                let counts = counter.counts
                report.requests = counts.requests
                report.retriedRequests = counts.retriedRequests
                report.storeCalls = counts.storeCalls
                report.writeCalls = counts.writeCalls
                report.bytesUploaded = counts.bytesUploaded
                report.bytesDownloaded = counts.bytesDownloaded
                return report
            case .registrationLost:
                try state.markUnregistered()
                // The whole application may have been removed: check it again too.
                await self.application.forgetRegistration()
                application = try await self.application.register()
                remote = application.remote.replacingStore(counter)
            case .historyMissing(let client):
                guard let installed = try await installWholeStore(from: nil, integrityKey, application, remote) else {
                    throw SyncError(
                        .historyMissing,
                        "client \(client) vacuumed change sets this database never applied, and no whole store "
                            + "of document \(documentID) contains them; local data is untouched"
                    )
                }
                report.recordInstalled(installed)
            }
            local = try state.registration()
        }
        throw SyncError(
            .corruptRemoteData,
            "document \(documentID) changed identity repeatedly during one sync; nothing was lost, try again later"
        )
    }

    func registerDocument(_ application: ApplicationRegistration, through remote: CodedRemote) async throws
        -> DocumentRegistration
    {
        try await DocumentRegistrar(
            application: application,
            remote: remote,
            documentID: documentID,
            documentDescription: documentDescription,
            state: state,
            delegate: delegate
        ).register()
    }
}
