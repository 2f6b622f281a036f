import Foundation
import GRDB
import Logging
import RemoteProtocol

extension DocumentSyncManager {
    /// Opens a synced document in one call: binds `database` to a document of the application on
    /// `store`, as this device, and syncs the configuration's tables.
    ///
    /// ```swift
    /// let store = try FileRemoteStore(root: URL(fileURLWithPath: "/mnt/shared/notes"))
    /// let notebook = try await DocumentSyncManager.open(
    ///     database: dbQueue, store: store, configuration: SyncConfiguration(applicationID: "com.example.notes", tables: ["note"]))
    /// let report = try await notebook.synchronize()
    /// ```
    ///
    /// It is ``LocalStore/init(writer:)``, ``ApplicationSyncManager/init(store:applicationID:device:encryption:logger:)``
    /// and ``init(application:documentID:localStore:documentDescription:delegate:lastSyncRecordInterval:)`` together, with
    /// the defaults of ``SyncConfiguration``; build those yourself to share one
    /// ``ApplicationSyncManager`` between documents.
    ///
    /// **One manager per database**: syncs of one manager are queued one after the other, so a
    /// second manager for the same database file in this process is refused
    /// (``SyncError/Code/alreadyOpen``) until the first is released or closed (``close()``).
    ///
    /// In this order, so that a failure changes as little as it can:
    /// 1. The identifiers and the tables are checked (the database is only read: a table that
    ///    cannot be synced changes nothing). A failure here changes nothing.
    /// 2. The database is claimed for this manager (refused if another manager of this process
    ///    holds it; nothing changed yet), the busy timeout is given
    ///    (``SyncConfiguration/busyTimeout``), RollingSync's own tables are created in the
    ///    database if needed, and the database is bound to the document as this client (a
    ///    database syncs one document as one client).
    /// 3. The tables are registered, in one transaction (a table that cannot be synced leaves none
    ///    of them registered). A table registered here for the first time has its existing rows
    ///    published by the next sync, as ``LocalStore/addSyncedTable(_:)`` does; a table
    ///    registered before is only checked. From here on every change is captured, even offline.
    /// 4. With ``SyncConfiguration/automaticSync``, the automatic sync starts.
    ///
    /// - Parameters:
    ///   - database: the application's database (a GRDB `DatabaseQueue` or `DatabasePool`).
    ///   - store: the remote store: a backend's store (`FileRemoteStore(root:)`,
    ///     `SFTPRemoteStore(configuration:)`…) or any `RemoteStore` of your own.
    ///   - configuration: the application, the tables, and what to change of the defaults.
    /// - Throws: ``SyncError`` with ``SyncError/Code/invalidIdentifier`` for an application or
    ///   document identifier RollingSync refuses (see ``SyncIdentifier``),
    ///   ``SyncError/Code/notRegistered`` if the database is bound to another document or client,
    ///   ``SyncError/Code/alreadyOpen`` if another manager of this process syncs the database;
    ///   ``LocalStoreError`` for a table that cannot be synced.
    public static func open(
        database: any DatabaseWriter,
        store: any RemoteStore,
        configuration: SyncConfiguration
    ) async throws -> DocumentSyncManager {
        let applicationID = try await check(configuration, on: database)
        let claim = try DatabaseClaim(database)
        return try await open(database: database, claim: claim, applicationID: applicationID, store: store, owningStore: false, configuration: configuration)
    }

    /// ``open(database:store:configuration:)`` once the configuration is checked and the database
    /// claimed; `owningStore` makes `store` the manager's to close. A failure releases the claim
    /// at once (an app may try again right away).
    private static func open(
        database: any DatabaseWriter,
        claim: DatabaseClaim,
        applicationID: SyncIdentifier,
        store: any RemoteStore,
        owningStore: Bool,
        configuration: SyncConfiguration
    ) async throws -> DocumentSyncManager {
        do {
            return try await bind(database, claim: claim, applicationID: applicationID, store: store, owningStore: owningStore, configuration: configuration)
        } catch {
            claim.release()
            throw error
        }
    }

    /// Steps 2 to 4 of ``open(database:store:configuration:)``.
    private static func bind(
        _ database: any DatabaseWriter,
        claim: DatabaseClaim,
        applicationID: SyncIdentifier,
        store: any RemoteStore,
        owningStore: Bool,
        configuration: SyncConfiguration
    ) async throws -> DocumentSyncManager {
        if let timeout = configuration.busyTimeout {
            try await giveBusyTimeout(timeout, to: database, logger: configuration.logger)
        }
        let localStore = try await LocalStore.open(writer: database)
        let manager = try await localStore.perform {
            let binding = try LocalSyncState(writer: database).registration()
            let documentID = try SyncIdentifier(configuration.documentID ?? binding?.documentID ?? SyncConfiguration.defaultDocumentID)
            let clientID = SyncIdentifier(deriving: configuration.clientID ?? binding?.clientID ?? localStore.databaseID)
            let device = DeviceInfo(
                clientID: clientID,
                description: configuration.clientDescription ?? configuration.clientID ?? ProcessInfo.processInfo.hostName
            )
            let application = ApplicationSyncManager(
                store: store, applicationID: applicationID, device: device, encryption: configuration.encryption, logger: configuration.logger
            )
            return try DocumentSyncManager(
                application: application, documentID: documentID, localStore: localStore,
                documentDescription: configuration.documentDescription, delegate: configuration.delegate,
                lastSyncRecordInterval: configuration.lastSyncRecordInterval, claim: claim
            )
        }
        let tables = configuration.tables
        try await database.write { db in
            for table in try SyncedTable.registrationOrder(tables, in: db) {
                _ = try LocalStore.addSyncedTable(table, in: db)
            }
        }
        await manager.finishOpening(automaticSync: configuration.automaticSync, owning: owningStore ? store : nil)
        return manager
    }

    /// Opens a synced document on the remote store at `url`, opened by the backend `registry`
    /// holds for its scheme (see ``open(database:store:configuration:)`` for the rest).
    ///
    /// ```swift
    /// RemoteStoreRegistry.shared.register(FileRemoteStore.self)   // once, for each backend you link
    /// let notebook = try await DocumentSyncManager.open(
    ///     database: dbQueue, remote: URL(fileURLWithPath: "/mnt/shared/notes"),
    ///     configuration: SyncConfiguration(applicationID: "com.example.notes", tables: ["note"]))
    /// ```
    ///
    /// The identifiers and tables are checked, and the database claimed, before the store is
    /// opened (an SFTP or WebDAV store connects, so this needs the remote to be reachable); a
    /// failure after that closes the store, and so does the manager's ``close()``.
    ///
    /// - Parameters:
    ///   - database: the application's database (a GRDB `DatabaseQueue` or `DatabasePool`).
    ///   - url: the remote store; backends read their settings from the URL's query (see each
    ///     backend's documentation).
    ///   - secrets: the backend's secrets (passwords, passphrases) under the names it exports,
    ///     never part of the URL.
    ///   - registry: where the backends are registered (`RemoteStoreRegistry.shared` by default).
    ///   - configuration: the application, the tables, and what to change of the defaults.
    /// - Throws: what ``open(database:store:configuration:)`` throws, and `RemoteStoreError` with
    ///   code `unsupported` when no backend is registered for the URL's scheme, or what the
    ///   backend throws for its settings or its server.
    public static func open(
        database: any DatabaseWriter,
        remote url: URL,
        secrets: [String: String] = [:],
        registry: RemoteStoreRegistry = .shared,
        configuration: SyncConfiguration
    ) async throws -> DocumentSyncManager {
        let applicationID = try await check(configuration, on: database)
        let claim = try DatabaseClaim(database)
        let store: any RemoteStore
        do {
            store = try await registry.makeStore(for: RemoteStoreConfiguration(url: url, secrets: secrets))
        } catch {
            claim.release()
            throw error
        }
        do {
            return try await open(database: database, claim: claim, applicationID: applicationID, store: store, owningStore: true, configuration: configuration)
        } catch {
            await store.close()
            throw error
        }
    }

    /// Checks the configuration's identifiers and tables, reading the database only.
    /// - Returns: the application identifier.
    private static func check(_ configuration: SyncConfiguration, on database: any DatabaseWriter) async throws -> SyncIdentifier {
        let applicationID = try SyncIdentifier(configuration.applicationID)
        if let documentID = configuration.documentID {
            _ = try SyncIdentifier(documentID)
        }
        let tables = configuration.tables
        try await database.read { db in
            for table in tables { _ = try SyncedTable.inspect(table, in: db) }
        }
        return applicationID
    }

    /// Gives the connection of `database`'s writer a busy timeout of `timeout` when it fails at
    /// once on a lock: GRDB's `busyMode` is `.immediateError` and no `PRAGMA busy_timeout` was set
    /// on it (by the app's `prepareDatabase`, say). See ``SyncConfiguration/busyTimeout``.
    private static func giveBusyTimeout(_ timeout: Duration, to database: any DatabaseWriter, logger: Logger) async throws {
        guard case .immediateError = database.configuration.busyMode else { return }
        let milliseconds = timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let given = try await database.writeWithoutTransaction { db in
            guard try Int.fetchOne(db, sql: "PRAGMA busy_timeout") == 0 else { return false }
            try db.execute(sql: "PRAGMA busy_timeout = \(milliseconds)")
            return true
        }
        guard given else { return }
        logger.notice(
            "the database's connection failed at once on a lock (GRDB's busyMode .immediateError): RollingSync gave it a busy timeout",
            metadata: ["milliseconds": "\(milliseconds)"]
        )
    }
}
