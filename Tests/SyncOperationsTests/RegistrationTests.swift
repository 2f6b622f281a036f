import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
import SyncCore
import Testing

@Suite("Application and document registration")
struct RegistrationTests {
    @Test("a new application gets its hierarchy, format.json, ReadMe and device info", arguments: Backend.allCases)
    func newApplication(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        let registration = try await anna.application.register()
        #expect(registration.createdApplication)
        #expect(registration.addedClient)
        #expect(registration.format.version == RemoteFormatFile.currentVersion)
        #expect(!registration.format.encrypted)
        #expect(try await remote.names(in: Paths.app) == ["ClientDevices", "Documents", "Encryption", "Information", "ReadMe.txt", "format.json"])
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices/anna") == ["deviceInfo.json"])
        let device = try JSONDecoder.iso8601.decode(
            DeviceInfo.self, from: await remote.store.read(RemotePath("\(Paths.app)/ClientDevices/anna/deviceInfo.json"))
        )
        #expect(device.clientID == anna.name)
        #expect(device.description == "test client anna")
    }

    @Test("an existing application registers a new client once", arguments: Backend.allCases)
    func existingApplication(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        _ = try await anna.application.register()
        let ben = try TestClient("ben", remote: remote.store)
        let first = try await ben.application.register()
        #expect(!first.createdApplication)
        #expect(first.addedClient)
        let again = ApplicationSyncManager(store: remote.store, applicationID: TestClient.applicationID, device: ben.application.device)
        let second = try await again.register()
        #expect(!second.createdApplication)
        #expect(!second.addedClient)
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna", "ben"])
    }

    @Test("a newer remote format is refused and nothing is written", arguments: Backend.allCases)
    func newerFormatRefused(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        try await remote.store.createDirectory(at: "com.example.notes")
        let future = #"{"format": "RollingSync", "version": 99, "cipher": "something new"}"#
        try await remote.store.write(Data(future.utf8), to: "com.example.notes/format.json")
        let anna = try TestClient("anna", remote: remote.store)
        let error = await #expect(throws: SyncError.self) { try await anna.application.register() }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("99") == true)
        #expect(try await remote.names(in: Paths.app) == ["format.json"])
        let syncError = await #expect(throws: SyncError.self) { try await anna.sync() }
        #expect(syncError?.code == .unsupportedFormat)
    }

    @Test("a folder that is not RollingSync data is refused", arguments: Backend.allCases)
    func foreignFolderRefused(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        try await remote.store.createDirectory(at: "com.example.notes")
        try await remote.store.write(Data("holiday photos".utf8), to: "com.example.notes/photo.jpg")
        let anna = try TestClient("anna", remote: remote.store)
        let error = await #expect(throws: SyncError.self) { try await anna.application.register() }
        #expect(error?.code == .corruptRemoteData)
        #expect(try await remote.names(in: Paths.app) == ["photo.jpg"])
    }

    @Test("a new document is created with its key and this client's directory; others join it", arguments: Backend.allCases)
    func newAndExistingDocument(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        let created = try await anna.manager.register()
        #expect(created.createdDocument)
        #expect(!created.recreatedDeletedDocument)
        #expect(try await remote.integrityKeys() == [created.integrityKey])
        #expect(try await remote.names(in: "\(Paths.document)/SyncChanges") == ["anna"])
        #expect(try await remote.names(in: Paths.document).contains("documentInfo.json"))
        #expect(try await anna.manager.isRegistered)

        let ben = try TestClient("ben", remote: remote.store)
        let joined = try await ben.manager.register()
        #expect(!joined.createdDocument)
        #expect(joined.integrityKey == created.integrityKey)
        #expect(joined.warnings.isEmpty)
        #expect(try await remote.names(in: "\(Paths.document)/SyncChanges") == ["anna", "ben"])
    }

    @Test("declining to create a missing document creates nothing", arguments: Backend.allCases)
    func declinedDocumentCreation(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store, delegate: ScriptedDelegate(createDocument: false))
        try anna.execute("INSERT INTO tag VALUES ('t1', 'kept')")
        let error = await #expect(throws: SyncError.self) { try await anna.sync() }
        #expect(error?.code == .declined)
        #expect(try await remote.names(in: "\(Paths.app)/Documents") == [])
        #expect(try anna.localStore.hasPendingChanges())
    }

    @Test("a deleted document is recreated on request and the other clients learn it, keeping their data", arguments: Backend.allCases)
    func deletedDocumentRecreated(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'before')")
        try await anna.sync()
        try await ben.sync()
        // Delete the document as the deletion operation does: tombstone, then the directory.
        try await remote.store.createDirectory(at: "com.example.notes/Information/DeletedDocuments")
        try await remote.store.copy(RemotePath("\(Paths.document)/documentInfo.json"), to: "com.example.notes/Information/DeletedDocuments/notebook.json")
        try await remote.store.delete(RemotePath(Paths.document))

        try ben.execute("INSERT INTO tag VALUES ('t2', 'ben after deletion')")
        try anna.execute("INSERT INTO tag VALUES ('t3', 'anna after deletion')")
        let benReport = try await ben.sync()
        #expect(benReport.pushedChanges == 1)
        #expect(try await remote.names(in: "com.example.notes/Information/DeletedDocuments") == [])
        #expect(try await remote.names(in: "\(Paths.document)/DeletedClients") == ["anna.json"])

        let annaReport = try await anna.sync()
        #expect(annaReport.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(annaReport.pushedChanges == 1)
        #expect(try await remote.names(in: "\(Paths.document)/DeletedClients") == [])
        try await ben.sync()
        #expect(try anna.dump() == ben.dump())
        #expect(try anna.count("tag") == 3)
    }

    @Test("a deleted document is not recreated when the application declines", arguments: Backend.allCases)
    func deletedDocumentDeclined(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        try await anna.sync()
        try await remote.store.createDirectory(at: "com.example.notes/Information/DeletedDocuments")
        try await remote.store.copy(RemotePath("\(Paths.document)/documentInfo.json"), to: "com.example.notes/Information/DeletedDocuments/notebook.json")
        try await remote.store.delete(RemotePath(Paths.document))
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(createDocument: false))
        let error = await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(error?.code == .declined)
        #expect(error?.message.contains("deleted") == true)
        #expect(try await remote.names(in: "\(Paths.app)/Documents") == [])
    }

    @Test("a client removed from the document registers again and keeps its unpushed changes", arguments: Backend.allCases)
    func removedClientKeepsData(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try await removeClient("ben", on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'written while removed')")

        let report = try await ben.sync()
        #expect(report.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(report.pushedChanges == 1)
        #expect(try await remote.names(in: "\(Paths.document)/DeletedClients") == [])
        try await anna.sync()
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a removed client whose application stops keeps everything and can decide later", arguments: Backend.allCases)
    func removedClientStops(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(removedRecovery: .stop))
        try await ben.sync()
        try await removeClient("ben", on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'unpushed')")
        let error = await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(error?.code == .clientRemoved)
        #expect(try ben.localStore.hasPendingChanges())
        #expect(try await remote.names(in: "\(Paths.document)/DeletedClients") == ["ben.json"])
    }

    @Test("an integrity key mismatch keeps the unpushed changes and reports the reset", arguments: Backend.allCases)
    func integrityMismatchKeepsUnpushedChanges(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let newKey = try await replaceIntegrityKey(on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'unpushed at reset')")

        let report = try await ben.sync()
        #expect(report.warnings.contains(.documentWasReset(TestClient.documentID)))
        #expect(report.pushedChanges == 1)
        #expect(try !ben.localStore.hasPendingChanges())
        let annaReport = try await anna.sync()
        #expect(annaReport.warnings.contains(.documentWasReset(TestClient.documentID)))
        #expect(try anna.dump() == ben.dump())
        #expect(try await ben.manager.register().integrityKey == newKey)
    }

    @Test("an integrity key mismatch with a stopping application changes nothing", arguments: Backend.allCases)
    func integrityMismatchStops(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(resetRecovery: .stop))
        try await ben.sync()
        _ = try await replaceIntegrityKey(on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'unpushed at reset')")
        let error = await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(error?.code == .integrityKeyMismatch)
        #expect(try ben.localStore.hasPendingChanges())
        #expect(try ben.count("tag") == 1)
        #expect(try await remote.names(in: Paths.changeSets(of: "ben")) == [])
    }

    @Test("delayed registration: changes captured offline are all pushed at the first sync")
    func delayedRegistration() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        await memory.failEveryCall()
        let anna = try TestClient("anna", remote: remote.store)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Offline'); INSERT INTO note VALUES ('n1', 'f1', 'a', 'b', 1)")
        #expect(try await !anna.manager.isRegistered)
        let error = await #expect(throws: SyncError.self) { try await anna.sync() }
        #expect(error?.code == .remote)
        #expect(error?.isRetryable == true)
        try anna.execute("UPDATE note SET body = 'still offline' WHERE id = 'n1'")

        await memory.heal()
        let report = try await anna.sync()
        #expect(try await anna.manager.isRegistered)
        #expect(report.pushedChanges == 2)
        let ben = try TestClient("ben", remote: remote.store)
        try await ben.sync()
        #expect(try ben.dump() == anna.dump())
        #expect(try ben.value("SELECT body FROM note") == "still offline".databaseValue)
    }

    @Test("after all remote data was removed, the next sync recreates it and keeps local data", arguments: Backend.allCases)
    func applicationRemoved(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'synced before removal')")
        try await anna.sync()
        try await ben.sync()
        try await remote.store.delete(RemotePath(Paths.app))
        try anna.execute("INSERT INTO tag VALUES ('t2', 'written after removal')")

        let report = try await anna.sync()
        #expect(report.pushedChanges == 1)
        #expect(try await remote.names(in: Paths.app).contains("format.json"))
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna"])
        let benReport = try await ben.sync()
        #expect(benReport.warnings.contains(.documentWasReset(TestClient.documentID)))
        #expect(try ben.value("SELECT label FROM tag WHERE id = 't2'") == "written after removal".databaseValue)
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna", "ben"])
    }

    @Test("a database bound to one document refuses another")
    func databaseBoundToOneDocument() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        #expect(throws: SyncError.self) {
            _ = try DocumentSyncManager(application: anna.application, documentID: SyncIdentifier("other"), localStore: anna.localStore)
        }
    }

    /// Removes a client from the document as the client-deletion operation does.
    private func removeClient(_ client: String, on remote: TestRemote) async throws {
        try await remote.store.write(Data("{}".utf8), to: RemotePath("\(Paths.document)/DeletedClients/\(client).json"))
        try await remote.store.delete(RemotePath(Paths.changeSets(of: client)))
    }

    /// Replaces the document's integrity key, as a recreation of the document does.
    private func replaceIntegrityKey(on remote: TestRemote) async throws -> String {
        for old in try await remote.integrityKeys() {
            try await remote.store.delete(RemotePath(Paths.integrityKeyFile(old)))
        }
        let key = UUID().uuidString
        try await remote.store.write(Data(), to: RemotePath(Paths.integrityKeyFile(key)))
        return key
    }
}

extension JSONDecoder {
    static let iso8601: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
