import Foundation
import GRDB
import RemoteProtocol
import SyncCore

/// One client of the benchmark's application: its own database with a `note` table, registered
/// with the document `notebook` of `com.example.benchmark` on `store`.
struct BenchmarkClient {
    static let applicationID = try! SyncIdentifier("com.example.benchmark")
    static let documentID = try! SyncIdentifier("notebook")

    let database: DatabaseQueue
    let application: ApplicationSyncManager
    let manager: DocumentSyncManager

    /// A new client `name` with its database in `directory`; `lastSyncRecordInterval` as
    /// ``DocumentSyncManager`` takes it (`.zero`: every sync records itself, so vacuum learns at
    /// once what the client applied).
    init(
        _ name: String, store: any RemoteStore, in directory: URL,
        lastSyncRecordInterval: Duration = SyncConfiguration.defaultLastSyncRecordInterval
    ) throws {
        database = try DatabaseQueue(path: directory.appendingPathComponent("\(name).sqlite").path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT, folder TEXT, position INTEGER, score REAL)")
        }
        let localStore = try LocalStore(writer: database)
        try localStore.register(table: "note")
        application = ApplicationSyncManager(
            store: store,
            applicationID: Self.applicationID,
            device: DeviceInfo(clientID: try SyncIdentifier(name), description: "benchmark client \(name)", registeredAt: Date())
        )
        manager = try DocumentSyncManager(
            application: application, documentID: Self.documentID, localStore: localStore, lastSyncRecordInterval: lastSyncRecordInterval
        )
    }

    func insertNote(_ id: String) throws {
        try database.write { db in
            try db.execute(sql: "INSERT INTO note VALUES (?, 'A title', 'Some body text', 'inbox', 1, 0.5)", arguments: [id])
        }
    }

    @discardableResult
    func sync() async throws -> SyncReport {
        try await manager.synchronize()
    }
}
