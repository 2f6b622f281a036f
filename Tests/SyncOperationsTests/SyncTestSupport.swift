import FileRemote
import Foundation
import GRDB
import InMemoryRemote
import Logging
import RemoteProtocol
import SyncCore
import TestSupport

/// The backends every scenario runs on.
enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory
    case folder

    var description: String { rawValue }
}

/// A remote store of one backend, with the in-memory store kept for fault injection and counts.
struct TestRemote: Sendable {
    let store: any RemoteStore
    let memory: InMemoryRemoteStore?
    let folder: TemporaryDirectory?
    /// Where the store's root lies on this machine's file system, when it does (a folder, or a
    /// test server on loopback whose data directory is known): tests plant files there that no
    /// ``RemoteStore`` call can make, such as an interrupted upload's temporary file.
    let localRoot: URL?

    /// A remote on any store, such as one of the real test servers.
    init(store: any RemoteStore, localRoot: URL? = nil) {
        self.store = store
        memory = nil
        folder = nil
        self.localRoot = localRoot
    }

    init(_ backend: Backend) throws {
        switch backend {
        case .memory:
            let memory = InMemoryRemoteStore()
            store = memory
            self.memory = memory
            folder = nil
            localRoot = nil
        case .folder:
            let folder = try TemporaryDirectory()
            store = try FileRemoteStore(root: folder.url)
            self.folder = folder
            localRoot = folder.url
            memory = nil
        }
    }

    /// The in-memory store; stops the test if this remote is not one.
    var faults: InMemoryRemoteStore {
        get throws {
            guard let memory else { throw TestFailure("this scenario needs the in-memory backend") }
            return memory
        }
    }

    /// The document's integrity keys: `RecentSyncs/<key>.integritykey` (format 2) and
    /// `IntegrityKey/<key>` (format 1).
    func integrityKeys() async throws -> [String] {
        let current = try await names(in: Paths.recentSyncs).filter { $0.hasSuffix(".integritykey") }
        return try await current.map { String($0.dropLast(".integritykey".count)) } + names(in: "\(Paths.document)/IntegrityKey")
    }

    /// The names of the document's last-sync markers.
    func recentSyncMarkers() async throws -> [String] {
        try await names(in: Paths.recentSyncs).filter { RecentSyncName(fileName: $0) != nil }
    }

    /// The names of the files directly inside `directory` (empty if it does not exist).
    func names(in directory: String) async throws -> [String] {
        do {
            return try await store.list(RemotePath(directory)).map(\.name).sorted()
        } catch RemoteStoreError.Code.notFound {
            return []
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The application schema of the scenarios: folders, notes in folders (foreign key), tags, and a
/// join table between notes and tags.
enum NotesSchema {
    static let sql = """
        CREATE TABLE folder (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
        CREATE TABLE note (
            id TEXT PRIMARY KEY NOT NULL,
            folder_id TEXT REFERENCES folder(id) ON DELETE CASCADE,
            title TEXT,
            body TEXT,
            rank INTEGER);
        CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, label TEXT NOT NULL);
        CREATE TABLE note_tag (
            id TEXT PRIMARY KEY NOT NULL,
            note_id TEXT NOT NULL REFERENCES note(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tag(id) ON DELETE CASCADE);
        """
    static let tables = ["folder", "note", "tag", "note_tag"]
}

/// One client: a real SQLite file in its own temporary directory, its local store, and its
/// managers for the application `com.example.notes` and the document `notebook`.
final class TestClient: Sendable {
    static let applicationID: SyncIdentifier = try! SyncIdentifier("com.example.notes")
    static let documentID: SyncIdentifier = try! SyncIdentifier("notebook")

    let name: SyncIdentifier
    let directory: TemporaryDirectory
    let database: DatabaseQueue
    let localStore: LocalStore
    let application: ApplicationSyncManager
    let manager: DocumentSyncManager

    init(
        _ name: String,
        remote: any RemoteStore,
        delegate: (any DocumentSyncDelegate)? = nil,
        codecProvider: any RemoteCodecProvider = PlaintextCodecProvider(),
        schema: String = NotesSchema.sql,
        tables: [String] = NotesSchema.tables,
        foreignKeys: Bool = true,
        applicationID: SyncIdentifier = TestClient.applicationID,
        documentID: SyncIdentifier = TestClient.documentID,
        sharing sharedApplication: ApplicationSyncManager? = nil,
        lastSyncRecordInterval: Duration = SyncConfiguration.defaultLastSyncRecordInterval,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        definitions: @escaping @Sendable (Database) -> Void = { _ in }
    ) throws {
        self.name = try SyncIdentifier(name)
        directory = try TemporaryDirectory()
        var configuration = Configuration()
        // GRDB enables `PRAGMA foreign_keys` by default; `foreignKeys: false` leaves SQLite's own
        // default (off), as a connection opened by another tool would have it.
        configuration.foreignKeysEnabled = foreignKeys
        configuration.prepareDatabase { db in
            // The tests do not need durability against power loss; skipping fsync keeps them fast.
            try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY")
            // The app's own collations and functions, as an app registers them.
            definitions(db)
        }
        database = try DatabaseQueue(path: directory.url.appendingPathComponent("\(name).sqlite").path, configuration: configuration)
        try database.write { db in try db.execute(sql: schema) }
        localStore = try LocalStore(writer: database)
        for table in tables {
            try localStore.register(table: table)
        }
        application = sharedApplication ?? ApplicationSyncManager(
            store: remote,
            applicationID: applicationID,
            device: DeviceInfo(clientID: self.name, description: "test client \(name)", registeredAt: Date()),
            codecProvider: codecProvider,
            logger: logger
        )
        manager = try DocumentSyncManager(
            application: application,
            documentID: documentID,
            localStore: localStore,
            documentDescription: "test notebook",
            delegate: delegate,
            lastSyncRecordInterval: lastSyncRecordInterval
        )
    }

    /// The `lastSyncRecordInterval` of the simulations' client `index`: the default for even
    /// indices (a sync that pushes nothing keeps the client's marker), zero for odd ones (every
    /// sync records itself), so every simulation mixes both.
    static func lastSyncRecordInterval(ofSimulatedClient index: Int) -> Duration {
        index.isMultiple(of: 2) ? SyncConfiguration.defaultLastSyncRecordInterval : .zero
    }

    /// Anna and Ben, both registered with the document and synced once.
    static func syncedPair(
        on remote: TestRemote, lastSyncRecordInterval: Duration = SyncConfiguration.defaultLastSyncRecordInterval
    ) async throws -> (TestClient, TestClient) {
        let anna = try TestClient("anna", remote: remote.store, lastSyncRecordInterval: lastSyncRecordInterval)
        let ben = try TestClient("ben", remote: remote.store, lastSyncRecordInterval: lastSyncRecordInterval)
        try await anna.sync()
        try await ben.sync()
        return (anna, ben)
    }

    /// Runs SQL on the client's database, as the application would.
    func execute(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws {
        try database.write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    /// Synchronizes, returning the report.
    @discardableResult
    func sync() async throws -> SyncReport {
        try await manager.synchronize()
    }

    /// Every row of every application table, as sortable text: two clients hold the same data
    /// exactly when their dumps are equal. `keyedOnly` leaves out rows whose key `id` is NULL,
    /// which stay on their client.
    func dump(tables: [String] = NotesSchema.tables, keyedOnly: Bool = false) throws -> [String] {
        try database.read { db in
            try tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table)\(keyedOnly ? " WHERE id IS NOT NULL" : "") ORDER BY id")
                    .map { "\(table) \($0.description)" }
            }
        }
    }

    /// One value from the database.
    func value(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws -> DatabaseValue {
        try database.read { db in try DatabaseValue.fetchOne(db, sql: sql, arguments: arguments) ?? .null }
    }

    /// The number of rows a query returns.
    func count(_ table: String) throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }
}

/// A delegate whose answers the test sets.
struct ScriptedDelegate: DocumentSyncDelegate {
    var createDocument = true
    var removedRecovery = RegistrationRecovery.keepLocalDataAndRegister
    var resetRecovery = RegistrationRecovery.keepLocalDataAndRegister
    var conflictResolver = ConflictResolver.lastWriterWins

    func shouldCreateDocument(_ documentID: SyncIdentifier, wasDeleted: Bool) async -> Bool { createDocument }
    func clientWasRemoved(from documentID: SyncIdentifier) async -> RegistrationRecovery { removedRecovery }
    func integrityKeyChanged(for documentID: SyncIdentifier) async -> RegistrationRecovery { resetRecovery }
}

/// The remote paths of the test document.
enum Paths {
    static let app = "com.example.notes"
    static let document = "com.example.notes/Documents/notebook"
    static func changeSets(of client: String) -> String { "\(document)/SyncChanges/\(client)" }
    static let recentSyncs = "\(document)/RecentSyncs"
    /// The integrity key file of format 2.
    static func integrityKeyFile(_ key: String) -> String { "\(recentSyncs)/\(key).integritykey" }
}
