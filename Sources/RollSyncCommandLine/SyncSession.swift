import Foundation
import GRDB
import RemoteProtocol
import SyncCore

/// A configured database with its managers: what `sync`, `status` and `change-password` work on.
struct SyncSession: Sendable {
    /// The database file's path as given.
    var path: String
    /// The database.
    var database: DatabaseQueue
    /// This process's lock on the database, held as long as the session lives.
    var lock: DatabaseLock
    /// Its `rollsync` settings.
    var settings: CommandLineSettings
    /// RollingSync's local store on it.
    var localStore: LocalStore
    /// The remote store.
    var store: any RemoteStore
    /// The application manager.
    var application: ApplicationSyncManager
    /// The document manager.
    var document: DocumentSyncManager

    /// Opens the configured database at `path` and its remote store.
    static func open(path: String, busyTimeout: Double, password: EncryptionPasswordSource, environment: [String: String]) async throws -> SyncSession {
        let database = try DatabaseFile.open(path, busyTimeout: busyTimeout)
        let settings = try DatabaseFile.settings(of: database, path: path)
        let lock = try await DatabaseFile.lock(path, busyTimeout: busyTimeout)
        let localStore = try LocalStore(writer: database)
        let store = try await settings.remoteLocation.open(registry: .withRollSyncBackends(), environment: environment)
        return try await assemble(path: path, database: database, lock: lock, settings: settings, localStore: localStore, store: store, password: password)
    }

    /// The session on an opened database and remote store: makes the managers, and closes `store`
    /// if that fails.
    static func assemble(
        path: String, database: DatabaseQueue, lock: DatabaseLock, settings: CommandLineSettings, localStore: LocalStore,
        store: any RemoteStore, password: EncryptionPasswordSource
    ) async throws -> SyncSession {
        do {
            let application = try makeApplication(store: store, settings: settings, encrypt: settings.encrypted, password: password)
            let document = try makeDocument(application: application, settings: settings, localStore: localStore)
            return SyncSession(
                path: path, database: database, lock: lock, settings: settings, localStore: localStore, store: store,
                application: application, document: document
            )
        } catch {
            await store.close()
            throw error
        }
    }

    /// Lets the document manager's running operation end, then disconnects the remote store.
    ///
    /// Every command awaits it before the process exits: a connection still being used or torn
    /// down while `exit` runs OpenSSL's clean-up (which frees the locks libssh2 and libcurl take)
    /// crashed the process.
    func close() async {
        await document.close()
        await store.close()
    }

    /// The application manager for `settings` on `store`; `encrypt` decides whether remote data
    /// this client creates is encrypted.
    static func makeApplication(
        store: any RemoteStore, settings: CommandLineSettings, encrypt: Bool, password: EncryptionPasswordSource
    ) throws -> ApplicationSyncManager {
        try ApplicationSyncManager(
            store: store,
            applicationID: SyncIdentifier(settings.applicationID),
            device: DeviceInfo(clientID: SyncIdentifier(settings.clientID), description: settings.clientDescription, registeredAt: Date()),
            codecProvider: codecProvider(settings: settings, encrypt: encrypt, password: password),
            logger: CommandLineLogging.logger
        )
    }

    /// The document manager for `settings` on `localStore`'s database.
    static func makeDocument(
        application: ApplicationSyncManager, settings: CommandLineSettings, localStore: LocalStore
    ) throws -> DocumentSyncManager {
        try DocumentSyncManager(
            application: application,
            documentID: SyncIdentifier(settings.documentID),
            localStore: localStore,
            documentDescription: settings.documentID
        )
    }

    /// The codec provider for `settings`: encrypting (asking `password` only when no cached key
    /// works) or plaintext. `encrypt` decides whether data this client creates is encrypted.
    private static func codecProvider(settings: CommandLineSettings, encrypt: Bool, password: EncryptionPasswordSource) -> any RemoteCodecProvider {
        EncryptingCodecProvider(
            keyStore: DataKeyFileStore(directory: URL(fileURLWithPath: settings.keyCacheDirectory)),
            decisions: EncryptionDecisions(
                newApplicationPassword: { _ in encrypt ? try? password.password() : nil },
                existingApplicationPassword: { _, _ in try? password.password() }
            )
        )
    }
}
