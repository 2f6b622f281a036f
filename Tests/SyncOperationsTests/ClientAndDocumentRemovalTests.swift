import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
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

    @Test("a removed client publishes again what it wrote: every client gets it, and later writes still win")
    func removedClientPublishesAgain() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        // Ben would keep his own value in any conflict: what he publishes again must meet none.
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(conflictResolver: ConflictResolver { _ in .local }))
        let carl = try TestClient("carl", remote: remote.store)
        for client in [anna, ben, carl] { try await client.sync() }
        _ = try await anna.manager.uploadWholeStore()
        try ben.execute("""
            INSERT INTO folder VALUES ('f1', 'Ben''s');
            INSERT INTO tag VALUES ('t1', 'kept'), ('t2', 'deleted by anna later'), ('t3', 'deleted by ben');
            """)
        try await ben.sync()
        try await anna.sync()
        // A second store holds ben's first set; carl never installs it.
        _ = try await anna.manager.uploadWholeStore()
        // Ben's second set: no client applies it before it goes with him.
        try ben.execute("UPDATE folder SET name = 'edited by ben' WHERE id = 'f1'; DELETE FROM tag WHERE id = 't3'")
        try await ben.sync()
        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        // A deletion and an edit Ben has not seen when he comes back, later than his writes.
        try anna.execute("DELETE FROM tag WHERE id = 't2'; UPDATE tag SET label = 'renamed by anna' WHERE id = 't1'")
        try await anna.sync()

        let back = try await ben.sync()
        #expect(back.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(back.wholeStoreInstalled != nil)
        #expect(back.conflicts.isEmpty)
        try await anna.sync()
        try await carl.sync()
        for client in [anna, ben, carl] {
            #expect(try client.value("SELECT name FROM folder WHERE id = 'f1'") == "edited by ben".databaseValue, "\(client.name)")
            #expect(try client.value("SELECT group_concat(id || ':' || label) FROM tag") == "t1:renamed by anna".databaseValue, "\(client.name)")
        }
        #expect(try anna.dump() == ben.dump())
        #expect(try carl.dump() == ben.dump())
        for client in [anna, ben, carl] {
            #expect(try await client.sync().pushedChanges == 0, "\(client.name): a last round pushes nothing")
        }
    }

    @Test("a client that applied what a removed client publishes again sees no conflict, and its later edit stays")
    func publishedAgainIsNoConflict() async throws {
        let remote = try TestRemote(.memory)
        let alwaysRemote = ScriptedDelegate(conflictResolver: ConflictResolver { _ in .remote })
        let anna = try TestClient("anna", remote: remote.store, delegate: alwaysRemote)
        let ben = try TestClient("ben", remote: remote.store)
        try await anna.sync()
        try ben.execute("INSERT INTO folder VALUES ('f1', 'by ben')")
        try await ben.sync()
        try await anna.sync()
        try anna.execute("UPDATE folder SET name = 'by anna, later' WHERE id = 'f1'")
        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        // Ben comes back first: his creation of f1 is published again before Anna pushes her edit.
        #expect(try await ben.sync().warnings.contains(.clientWasRemoved(TestClient.documentID)))
        let annaSync = try await anna.sync()
        #expect(annaSync.conflicts.isEmpty)
        #expect(annaSync.appliedSets == 1)
        try await ben.sync()
        for client in [anna, ben] {
            #expect(try client.value("SELECT name FROM folder WHERE id = 'f1'") == "by anna, later".databaseValue, "\(client.name)")
            #expect(try await client.sync().pushedChanges == 0, "\(client.name): a last round pushes nothing")
        }
    }

    @Test("a removed creator publishes again the rows only its whole store carried; a deletion or an edit since still wins")
    func removedCreatorPublishesItsOldRows() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient(
            "anna", remote: remote.store, schema: NotesSchema.sql + "INSERT INTO folder VALUES ('f1', 'old'), ('f2', 'old, deleted by ben');"
        )
        #expect(try await anna.sync().wholeStoreUploaded != nil)
        // Ben would take the other value in any conflict: Anna's old rows must meet none.
        let ben = try TestClient("ben", remote: remote.store, delegate: ScriptedDelegate(conflictResolver: ConflictResolver { _ in .remote }))
        #expect(try await ben.sync().wholeStoreInstalled != nil)
        try ben.execute("DELETE FROM folder WHERE id = 'f2'")
        try await ben.sync()
        // Anna's whole store, the only copy of her old rows on the remote, goes with her.
        try await ben.application.removeClient(anna.name, from: TestClient.documentID)
        let carl = try TestClient("carl", remote: remote.store)
        try await carl.sync()
        #expect(try carl.count("folder") == 0)

        try ben.execute("UPDATE folder SET name = 'renamed by ben' WHERE id = 'f1'")

        let back = try await anna.sync()
        #expect(back.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(try await ben.sync().conflicts.isEmpty)
        try await carl.sync()
        try await anna.sync()
        for client in [anna, ben, carl] {
            #expect(try client.value("SELECT group_concat(id || ':' || name) FROM folder") == "f1:renamed by ben".databaseValue, "\(client.name)")
        }
        #expect(try anna.dump() == carl.dump())
        #expect(try ben.dump() == carl.dump())
        for client in [anna, ben, carl] {
            #expect(try await client.sync().pushedChanges == 0, "\(client.name): a last round pushes nothing")
        }
    }

    @Test("what a removed client logged again and could not push yet is forgotten when the document is recreated meanwhile")
    func publishedAgainThenRecreated() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'by ben')")
        try await ben.sync()
        try await anna.sync()
        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        // Ben registers again and logs his writes again; the sync then fails before pushing.
        await (try remote.faults).failCall(1, of: .upload, code: .permissionDenied)
        await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(try ben.value("SELECT count(*) FROM rollingsync_changes WHERE republished") == 1.databaseValue)
        try ben.execute("INSERT INTO tag VALUES ('t2', 'by ben, not pushed')")

        try await anna.application.deleteDocument(TestClient.documentID)
        try await anna.sync()
        let report = try await ben.sync()
        #expect(report.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(report.pushedChanges == 1, "only t2: the recreated document starts from Anna's data")
        try await anna.sync()
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a removed client that recreates the deleted document before pushing what it logged again uploads the rows only a store carried")
    func republishedThenRecreatedByTheRemovedClient() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, schema: NotesSchema.sql + "INSERT INTO folder VALUES ('f1', 'old');")
        try await anna.sync()
        let ben = try TestClient("ben", remote: remote.store)
        #expect(try await ben.sync().wholeStoreInstalled != nil)
        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        await (try remote.faults).failCall(1, of: .upload, code: .permissionDenied)
        await #expect(throws: SyncError.self) { try await ben.sync() }
        #expect(try ben.value("SELECT count(*) FROM rollingsync_changes WHERE republished") == 1.databaseValue, "f1, at clock 0")

        try await anna.application.deleteDocument(TestClient.documentID)
        let recreation = try await ben.sync()
        #expect(recreation.wholeStoreUploaded != nil, "f1 is in no change set: the recreated document's store carries it")
        let carl = try TestClient("carl", remote: remote.store)
        try await carl.sync()
        #expect(try carl.value("SELECT name FROM folder WHERE id = 'f1'") == "old".databaseValue)
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
