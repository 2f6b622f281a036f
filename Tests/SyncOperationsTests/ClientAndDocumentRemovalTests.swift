import Foundation
import GRDB
import SyncCore
import Testing

@Suite("Removing clients and documents")
struct ClientAndDocumentRemovalTests {
    @Test("a client removed from a document learns it, re-bases on a whole store and keeps its edits", arguments: Backend.allCases)
    func removedClientComesBack(backend: Backend) async throws {
        try await Self.removedClientComesBack(through: try TestRemote(backend))
    }

    static func removedClientComesBack(through remote: TestRemote) async throws {
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        try await ben.sync()
        _ = try await ben.manager.uploadWholeStore()
        _ = try await anna.manager.uploadWholeStore()

        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        #expect(try await remote.names(in: "\(Paths.document)/DeletedClients") == ["ben.json"])
        #expect(try await remote.names(in: "\(Paths.document)/SyncChanges") == ["anna"])
        #expect(try await remote.names(in: "\(Paths.document)/WholeStore").contains("ben") == false)
        #expect(try await remote.recentSyncMarkers().allSatisfy { $0.hasPrefix("anna@") })

        try ben.execute("INSERT INTO tag VALUES ('t1', 'kept')")
        let report = try await ben.sync()
        #expect(report.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(report.wholeStoreInstalled?.client == anna.name)
        #expect(report.pushedChanges == 1)
        #expect(try await remote.names(in: "\(Paths.document)/DeletedClients").isEmpty)
        try await anna.sync()
        #expect(try anna.count("tag") == 1)
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a client that declines after its removal stops with clientRemoved and keeps its data")
    func removedClientDeclines() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(removedRecovery: .stop))
        try await anna.sync()
        try await ben.sync()
        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'local')")
        await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(try ben.count("tag") == 1)
        await #expect(throws: SyncError.self) { try await anna.application.removeClient(anna.name, from: TestClient.documentID) }
    }

    @Test("a client removed from the application is removed everywhere and can come back", arguments: Backend.allCases)
    func removedFromApplication(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try await anna.application.removeClientFromApplication(ben.name)
        #expect(try await remote.names(in: "\(Paths.app)/Information/DeletedClients") == ["ben.json"])
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna"])
        #expect(try await remote.names(in: "\(Paths.document)/SyncChanges") == ["anna"])
        #expect(try await anna.application.clients().map(\.device.clientID) == [anna.name])

        let report = try await ben.sync()
        #expect(report.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(try await remote.names(in: "\(Paths.app)/Information/DeletedClients").isEmpty)
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna", "ben"])
    }

    @Test("a deleted document is recreated by the next client, which uploads a whole store the others re-base on", arguments: Backend.allCases)
    func deletedDocumentFlow(backend: Backend) async throws {
        try await Self.deletedDocumentFlow(through: try TestRemote(backend))
    }

    static func deletedDocumentFlow(through remote: TestRemote) async throws {
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        try await ben.sync()

        try await anna.application.deleteDocument(TestClient.documentID)
        #expect(try await remote.names(in: "\(Paths.app)/Information/DeletedDocuments") == ["notebook.json"])
        #expect(try await remote.names(in: "\(Paths.app)/Documents").isEmpty)
        #expect(try await anna.application.documents().isEmpty)

        let recreated = try await anna.sync()
        #expect(recreated.wholeStoreUploaded != nil)
        #expect(try await remote.names(in: "\(Paths.app)/Information/DeletedDocuments").isEmpty)

        try ben.execute("INSERT INTO tag VALUES ('t1', 'offline edit')")
        let report = try await ben.sync()
        #expect(report.wholeStoreInstalled?.client == anna.name)
        #expect(try ben.count("tag") == 1)
        try await anna.sync()
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a client that declines to recreate a deleted document stops with declined")
    func deletedDocumentDeclined() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(createDocument: false))
        try await anna.sync()
        try await anna.application.deleteDocument(TestClient.documentID)
        await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(try await remote.names(in: "\(Paths.app)/Documents").isEmpty)
    }

    @Test("removing all remote data deletes the application's folder; the next sync starts afresh")
    func removeAllRemoteData() async throws {
        let remote = try TestRemote(.folder)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        try await ben.sync()
        try await anna.application.removeAllRemoteData()
        #expect(try await remote.names(in: "").isEmpty)
        try await anna.sync()
        try await ben.sync()
        #expect(try await remote.names(in: "") == [Paths.app])
        #expect(try anna.dump() == ben.dump())
    }
}
