import Foundation
import Logging
import RemoteProtocol

/// Registers a client with an application's remote data, creating that data on first use.
///
/// One manager serves one application and one client. ``register()`` is idempotent and cheap once
/// the client is known (two requests); concurrent calls share one registration.
///
/// What registration does (TICoreDataSync's application registration, without its pauses):
/// 1. Reads `<appID>/format.json`. If it is missing, the application's remote data is created: the
///    directory skeleton, a `ReadMe.txt`, and `format.json` **last**, so its presence means the
///    hierarchy is complete. A directory without `format.json` that holds anything but that skeleton
///    is not RollingSync data and is refused rather than written into; one with registered clients
///    has lost its `format.json` and is refused too, unless a format upgrade was replacing it
///    (then it is restored; see ``upgradeFormat()``).
/// 2. Refuses a format newer than this build understands (``SyncError/Code/unsupportedFormat``).
/// 3. Opens the codec every other file passes through (plaintext, or the `encryption` provider
///    given to ``init(store:applicationID:device:encryption:logger:)``, where the encryption
///    decision and password check happen).
/// 4. Registers the client: `ClientDevices/<client>/deviceInfo.json` is written if missing (and
///    a tombstone `Information/DeletedClients/<client>.json` left by its removal is deleted).
public actor ApplicationSyncManager {
    /// The application's identifier.
    public nonisolated let applicationID: SyncIdentifier
    /// This client's identity.
    public nonisolated let device: DeviceInfo

    /// The remote store the application's data lives in.
    public nonisolated let store: any RemoteStore

    let layout: ApplicationLayout
    private let codecProvider: any RemoteCodecProvider
    private var registration: Task<ApplicationRegistration, any Error>?
    /// The format version written when this manager creates the application's remote data
    /// (tests create older formats to prove they are still read and written).
    private var newApplicationFormatVersion = RemoteFormatFile.currentVersion

    /// Where RollingSync logs what it does (see ``init(store:applicationID:device:encryption:logger:)``).
    nonisolated let logger: Logger

    /// Creates a manager for `applicationID` on `store`, registering the client `device`; with
    /// `encryption`, the application's remote data may be encrypted (see
    /// ``EncryptingCodecProvider``), otherwise files are stored as they are and encrypted remote
    /// data is refused with ``SyncError/Code/unsupportedFormat``.
    ///
    /// `logger` receives, from this manager and its document managers: at `debug`, each phase of
    /// a sync or whole-store transfer, each remote request (primitive, path, bytes, duration,
    /// outcome), each applied or pushed change set, each conflict decision (table, column and
    /// resolution; never values); at `notice`, what changed local data by a rule or schema change;
    /// at `warning`, sets held back and failed syncs. Nothing secret (passwords, keys, row values)
    /// is ever logged. The default logs nothing.
    public init(
        store: any RemoteStore,
        applicationID: SyncIdentifier,
        device: DeviceInfo,
        encryption: EncryptingCodecProvider? = nil,
        logger: Logger = Logger(label: "rollingsync", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(store: store, applicationID: applicationID, device: device, codecProvider: encryption ?? PlaintextCodecProvider(), logger: logger)
    }

    /// Creates a manager whose files pass through the codec `codecProvider` chooses.
    package init(
        store: any RemoteStore,
        applicationID: SyncIdentifier,
        device: DeviceInfo,
        codecProvider: any RemoteCodecProvider,
        logger: Logger = Logger(label: "rollingsync", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.logger = logger
        self.store = store
        self.applicationID = applicationID
        self.device = device
        self.codecProvider = codecProvider
        layout = ApplicationLayout(applicationID: applicationID)
    }

    /// Registers this client, creating the application's remote data if there is none.
    ///
    /// A successful registration is remembered; a failed one is not, so calling again retries.
    /// - Throws: ``SyncError``: ``SyncError/Code/unsupportedFormat`` for newer or encrypted data this
    ///   build cannot read, ``SyncError/Code/corruptRemoteData`` for a folder that is not RollingSync
    ///   data, ``SyncError/Code/remote`` for storage failures.
    public func register() async throws -> ApplicationRegistration {
        if let registration {
            do {
                return try await registration.value
            } catch {
                self.registration = nil
                throw error
            }
        }
        let task = Task { try await performRegistration() }
        registration = task
        do {
            return try await task.value
        } catch {
            registration = nil
            throw error
        }
    }

    /// Creates new applications in format `version` (at most the current one) instead of the
    /// current format: for tests of older layouts.
    package func createNewApplications(inFormat version: Int) {
        precondition((1...RemoteFormatFile.currentVersion).contains(version), "unknown remote format version \(version)")
        newApplicationFormatVersion = version
    }

    /// Forgets the remembered registration, so the next ``register()`` checks the remote again
    /// (used when a document turns out to be gone: the whole application may have been removed).
    func forgetRegistration() {
        registration = nil
    }

    /// The application's remote data opened for reading only: `format.json` and the codec, with
    /// nothing created or registered (the remembered registration if there is one; a `format.json`
    /// an interrupted format upgrade left missing is restored, see ``upgradeFormat()``). For
    /// operations that only read, such as verify, log and restore.
    /// - Throws: ``SyncError/Code/notFound`` if the application has no remote data; as
    ///   ``register()`` otherwise.
    func openForReading() async throws -> ApplicationRegistration {
        if let registration, let registered = try? await registration.value {
            return registered
        }
        let plain = CodedRemote(store: store, codec: PlaintextCodec())
        guard let format = try await readFormatFile(plain) else {
            throw SyncError(.notFound, "application \(applicationID) has no remote data (no \(layout.formatFile))")
        }
        let codec = try await codecProvider.codec(forExisting: format, layout: layout, store: store)
        return ApplicationRegistration(
            applicationID: applicationID, clientID: device.clientID, layout: layout, format: format,
            createdApplication: false, addedClient: false, remote: CodedRemote(store: store, codec: codec)
        )
    }

    private func performRegistration() async throws -> ApplicationRegistration {
        let plain = CodedRemote(store: store, codec: PlaintextCodec())
        var createdApplication = false
        let format: RemoteFormatFile
        let codec: any RemoteFileCodec
        if let existing = try await readFormatFile(plain) {
            format = existing
            codec = try await codecProvider.codec(forExisting: format, layout: layout, store: store)
        } else {
            (format, codec, createdApplication) = try await createApplication(plain)
        }
        let remote = CodedRemote(store: store, codec: codec)
        let addedClient = try await registerClient(remote)
        return ApplicationRegistration(
            applicationID: applicationID,
            clientID: device.clientID,
            layout: layout,
            format: format,
            createdApplication: createdApplication,
            addedClient: addedClient,
            remote: remote
        )
    }

    /// `format.json`; when it is missing, restored if a format upgrade was replacing it (see
    /// ``formatFileDuringReplacement(_:)``, which refuses an application that lost it otherwise).
    /// `nil` when the application does not exist yet, or its creation was interrupted.
    private func readFormatFile(_ remote: CodedRemote) async throws -> RemoteFormatFile? {
        if let format = try await RemoteFormatFile.read(at: layout.formatFile, from: remote) {
            return format
        }
        return try await formatFileDuringReplacement(remote)
    }

    /// Creates the hierarchy, ReadMe and codec material, then `format.json` last, exclusively where
    /// the store can: of two clients creating the application at once, the one whose `format.json`
    /// is created first wins, and the other opens the winner's data instead (`created` false).
    private func createApplication(_ remote: CodedRemote) async throws -> (RemoteFormatFile, any RemoteFileCodec, created: Bool) {
        try await refuseForeignContent(remote)
        for directory in layout.skeleton {
            try await remote.createDirectory(directory)
        }
        try await remote.write(Data(Self.readMe.utf8), to: layout.readMe)
        let (codec, encrypted, dataKeyID) = try await codecProvider.codecForNewApplication(layout: layout, store: store)
        let format = RemoteFormatFile(
            encrypted: encrypted, dataKeyID: dataKeyID, createdBy: device.clientID, createdAt: Date(), version: newApplicationFormatVersion
        )
        let won = try await remote.createJSONExclusively(format, at: layout.formatFile)
        try await codecProvider.settleNewApplication(codec, won: won, layout: layout, store: store)
        guard !won else { return (format, codec, true) }
        guard let existing = try await readFormatFile(remote) else {
            throw SyncError(.corruptRemoteData, "\(layout.formatFile) was created by another client, then disappeared")
        }
        return (existing, try await codecProvider.codec(forExisting: existing, layout: layout, store: store), false)
    }

    /// Throws if the application directory exists and holds anything besides what an interrupted
    /// creation leaves (the skeleton and the ReadMe).
    private func refuseForeignContent(_ remote: CodedRemote) async throws {
        let items: [RemoteItem]
        do {
            items = try await store.list(layout.root)
        } catch RemoteStoreError.Code.notFound {
            return
        } catch let error as RemoteStoreError {
            throw SyncError.remote(error, of: store)
        }
        let known: Set<String> = ["ClientDevices", "Encryption", "Information", "Documents", "ReadMe.txt"]
        let foreign = items.map(\.name).filter { !known.contains($0) }.sorted()
        if !foreign.isEmpty {
            throw SyncError(
                .corruptRemoteData,
                "\(layout.root) exists but has no format.json and holds \(foreign.prefix(5).joined(separator: ", ")); "
                    + "it is not RollingSync data, so nothing was written there"
            )
        }
    }

    /// Writes this client's device info if missing; true if it was written.
    private func registerClient(_ remote: CodedRemote) async throws -> Bool {
        let path = layout.deviceInfo(device.clientID)
        if try await remote.exists(path) != nil {
            return false
        }
        try await remote.createDirectory(layout.clientDirectory(device.clientID))
        try await remote.writeJSON(device, to: path)
        // A client removed from the application that comes back is a client again; each
        // document's own tombstone still lets its delegate decide there.
        try await remote.delete(layout.deletedClientTombstone(device.clientID))
        return true
    }

    private static let readMe = """
        This folder holds RollingSync synchronisation data.

        Please do not change, move or delete anything in it by hand: the applications that synchronise
        through it rely on every file staying exactly as they wrote it.

        """
}
