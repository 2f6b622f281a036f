import Foundation
import GRDB
import Logging
import RemoteProtocol

extension DocumentSyncManager {
    /// Opens a synced document in one call: binds `database` to document `documentID` of
    /// application `applicationID` on the remote store at `url`, as client `clientID`, and
    /// registers `tables` for sync (checking tables registered before, as
    /// ``LocalStore/register(table:)`` does).
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
    /// build those yourself to share one ``ApplicationSyncManager`` between documents. Nothing
    /// remote happens until the first sync, which registers the client and the document.
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
    ///   - clientID: this device, unique within the application.
    ///   - tables: the synced tables.
    ///   - clientDescription: a description of this client for people; `clientID` when `nil`.
    ///   - documentDescription: stored with the document if this client creates it.
    ///   - encryption: how encrypted remote data is created and unlocked; `nil` for none.
    ///   - delegate: the application's decisions; `nil` takes every default.
    ///   - logger: where RollingSync logs what it does (nothing by default).
    /// - Throws: ``SyncError`` with ``SyncError/Code/invalidIdentifier`` for an identifier
    ///   RollingSync refuses (see ``SyncIdentifier``); ``LocalStoreError`` for a table that
    ///   cannot be synced (the database is left as it was); `RemoteStoreError` with code
    ///   `unsupported` when no backend is registered for the URL's scheme, or what the backend
    ///   throws for its settings.
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
        let client = try SyncIdentifier(clientID)
        let localStore = try LocalStore(writer: database)
        try await database.write { db in
            for table in tables {
                _ = try LocalStore.register(table: table, in: db)
            }
        }
        let store = try await registry.makeStore(for: RemoteStoreConfiguration(url: url, secrets: secrets))
        let manager = ApplicationSyncManager(
            store: store, applicationID: application, device: DeviceInfo(clientID: client, description: clientDescription ?? clientID),
            encryption: encryption, logger: logger
        )
        return try DocumentSyncManager(
            application: manager, documentID: document, localStore: localStore, documentDescription: documentDescription, delegate: delegate
        )
    }
}
