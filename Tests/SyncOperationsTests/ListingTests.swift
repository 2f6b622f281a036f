import Foundation
import GRDB
import SyncCore
import Testing

@Suite("Listings of documents and clients")
struct ListingTests {
    @Test("documents, clients of the application and clients of a document report dates and descriptions", arguments: Backend.allCases)
    func listings(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let start = Date().addingTimeInterval(-0.001)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        let upload = try await anna.manager.uploadWholeStore()
        let end = Date().addingTimeInterval(0.001)

        let documents = try await ben.application.documents()
        #expect(documents.map(\.documentID) == [TestClient.documentID])
        let document = try #require(documents.first)
        #expect(document.description == "test notebook")
        #expect(document.createdBy == anna.name)
        // documentInfo.json stores whole seconds.
        let startSecond = Date(timeIntervalSince1970: start.timeIntervalSince1970.rounded(.down))
        #expect((startSecond...end).contains(document.createdAt))
        let lastSync = try #require(document.lastSyncDate)
        #expect((start...end).contains(lastSync))

        let clients = try await ben.application.clients()
        #expect(clients.map(\.device.clientID) == [anna.name, ben.name])
        #expect(clients.map(\.device.description) == ["test client anna", "test client ben"])
        #expect(clients.allSatisfy { $0.documents == [TestClient.documentID] })

        let ofDocument = try await ben.application.clients(of: TestClient.documentID)
        #expect(ofDocument.map(\.clientID) == [anna.name, ben.name])
        let annaEntry = try #require(ofDocument.first)
        let benEntry = try #require(ofDocument.last)
        #expect(annaEntry.wholeStoreDate == upload.unit.date)
        #expect((start...end).contains(try #require(annaEntry.wholeStoreDate)))
        #expect(benEntry.wholeStoreDate == nil)
        #expect(annaEntry.changeSetCount == 1)
        #expect(benEntry.changeSetCount == 0)
        let benLastSync = try #require(benEntry.lastSyncDate)
        #expect(try #require(annaEntry.lastSyncDate) >= benLastSync)
        #expect(annaEntry.lastSyncDate == lastSync)
        #expect(try await ben.application.clients(of: try SyncIdentifier("missing")).isEmpty)
    }
}
