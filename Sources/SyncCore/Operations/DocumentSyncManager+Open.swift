import Foundation
import GRDB
import Logging
import RemoteProtocol

extension DocumentSyncManager {
    /// Opens a synced document in one call: binds `database` to document `documentID` of
    /// application `applicationID` on the remote store at `url`, as client `clientID`, and
    /// syncs `tables`.
    ///
    /// ```swift
    /// RemoteStoreRegistry.shared.register(FileRemoteStore.self)   // once, for each backend you link
    /// let notebook = try await DocumentSyncManager.open(
    ///     database: dbQueue, remote: URL(fileURLWithPath: "/mnt/shared/notes"),
    ///     application: "com.example.notes", document: "notebook", client: "anna-laptop", tables: ["note"])
    /// let report = try await notebook.synchronize()
    /// ```
    ///
    /// It is ``LocalStore/init(writer:)``, ``ApplicationSyncManager/init(store:applicationID:device:encryption:logger:)``
    /// and ``init(application:documentID:localStore:documentDescription:delegate:)`` together;
    /// build those yourself to share one ``ApplicationSyncManager`` between documents. Call it once
    /// per database and keep the manager: syncs of one manager are queued one after the other,
    /// those of two managers of one database are not.
    ///
    /// In this order, so that a failure changes as little as it can:
    /// 1. The identifiers and the tables are checked (the database is only read: a table that
    ///    cannot be synced changes nothing), and the backend opens its store (a folder must exist;
    ///    an SFTP or WebDAV store connects, so this needs the remote to be reachable). A failure
    ///    here changes nothing.
    /// 2. RollingSync's own tables are created in the database if needed, and the database is bound
    ///    to the document as this client (a database syncs one document as one client).
    /// 3. The tables are registered, in one transaction (a table that cannot be synced leaves none
    ///    of them registered). A table registered here for the first time has its existing rows
    ///    published by the next sync, as ``LocalStore/addSyncedTable(_:)`` does; a table
    ///    registered before is only checked. From here on every change is captured, even offline.
    ///
    /// - Parameters:
    ///   - database: the application's database (a GRDB `DatabaseQueue` or `DatabasePool`).
    ///   - url: the remote store, opened by the backend `registry` holds for its scheme; backends
    ///     read their settings from the URL's query (see each backend's documentation).
    ///   - secrets: the backend's secrets (passwords, passphrases) under the names it exports,
    ///     never part of the URL.
    ///   - registry: where the backends are registered (`RemoteStoreRegistry.shared` by default).
    ///   - applicationID: the application, shared by all its devices.
    ///   - documentID: the document this database holds.
    ///   - clientID: this device, unique within the application: any text, such as the device's
    ///     name (`"Anna's iPhone (2)"`); text that is not a valid ``SyncIdentifier`` is turned into
    ///     one by ``SyncIdentifier/init(deriving:)``, always the same for the same text.
    ///   - tables: the synced tables.
    ///   - clientDescription: a description of this client for people; `clientID` as given when `nil`.
    ///   - documentDescription: stored with the document if this client creates it.
    ///   - encryption: how encrypted remote data is created and unlocked; `nil` for none.
    ///   - delegate: the application's decisions; `nil` takes every default.
    ///   - logger: where RollingSync logs what it does (nothing by default).
    /// - Throws: ``SyncError`` with ``SyncError/Code/invalidIdentifier`` for an application or
    ///   document identifier RollingSync refuses (see ``SyncIdentifier``), or ``SyncError/Code/notRegistered`` if the
    ///   database is bound to another document or client; `RemoteStoreError` with code
    ///   `unsupported` when no backend is registered for the URL's scheme, or what the backend
    ///   throws for its settings or its server; ``LocalStoreError`` for a table that cannot be
    ///   synced.
    public static func open(
        database: any DatabaseWriter,
        remote url: URL,
        secrets: [String: String] = [:],
        registry: RemoteStoreRegistry = .shared,
        application applicationID: String,
        document documentID: String,
        client clientID: String,
        tables: [String],
        clientDescription: String? = nil,
        documentDescription: String = "",
        encryption: EncryptingCodecProvider? = nil,
        delegate: (any DocumentSyncDelegate)? = nil,
        logger: Logger = Logger(label: "rollingsync", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> DocumentSyncManager {
        let application = try SyncIdentifier(applicationID)
        let document = try SyncIdentifier(documentID)
        let client = SyncIdentifier(deriving: clientID)
        try await database.read { db in
            for table in tables { _ = try SyncedTable.inspect(table, in: db) }
        }
        let store = try await registry.makeStore(for: RemoteStoreConfiguration(url: url, secrets: secrets))
        let manager = ApplicationSyncManager(
            store: store, applicationID: application, device: DeviceInfo(clientID: client, description: clientDescription ?? clientID),
            encryption: encryption, logger: logger
        )
        let documentManager = try DocumentSyncManager(
            application: manager, documentID: document, localStore: try LocalStore(writer: database),
            documentDescription: documentDescription, delegate: delegate
        )
        try await database.write { db in
            for table in try SyncedTable.registrationOrder(tables, in: db) {
                _ = try LocalStore.addSyncedTable(table, in: db)
            }
        }
        return documentManager
    }
}
