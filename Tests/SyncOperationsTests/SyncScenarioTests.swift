import Foundation
import GRDB
import SyncCore
import TestSupport
import Testing

@Suite("Synchronization between clients")
struct SyncScenarioTests {
    @Test("inserts, updates, deletes, foreign keys and join rows reach every client", arguments: Backend.allCases)
    func twoAndThreeClientsPropagateEveryKindOfChange(backend: Backend) async throws {
        try await Self.everyKindOfChangePropagates(through: TestRemote(backend))
    }

    /// Three clients exchange inserts, updates, deletes, a cascading delete and join rows through
    /// `remote`, and end with the same data. Also run on the real servers (ServerSyncScenarioTests).
    static func everyKindOfChangePropagates(through remote: TestRemote) async throws {
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        let carl = try TestClient("carl", remote: remote.store)

        try anna.execute("""
            INSERT INTO folder VALUES ('f1', 'Inbox');
            INSERT INTO note VALUES ('n1', 'f1', 'Groceries', 'milk', 1), ('n2', 'f1', 'Ideas', NULL, 2);
            INSERT INTO tag VALUES ('t1', 'home');
            INSERT INTO note_tag VALUES ('nt1', 'n1', 't1');
            """)
        let first = try await anna.sync()
        #expect(first.pushedChanges == 5)
        let received = try await ben.sync()
        #expect(received.appliedSets == 1)
        #expect(try ben.dump() == anna.dump())

        try ben.execute("UPDATE note SET body = 'milk, eggs' WHERE id = 'n1'; DELETE FROM note WHERE id = 'n2';")
        try ben.execute("INSERT INTO tag VALUES ('t2', 'work'); INSERT INTO note_tag VALUES ('nt2', 'n1', 't2');")
        try await ben.sync()
        try await carl.sync()
        try await anna.sync()
        #expect(try anna.value("SELECT body FROM note WHERE id = 'n1'") == "milk, eggs".databaseValue)
        #expect(try anna.count("note") == 1)
        #expect(try carl.count("note_tag") == 2)

        try carl.execute("DELETE FROM folder WHERE id = 'f1'")  // cascades to notes and their join rows
        try await carl.sync()
        try await anna.sync()
        try await ben.sync()
        #expect(try anna.count("note") == 0)
        #expect(try anna.count("note_tag") == 0)
        #expect(try anna.dump() == carl.dump())
        #expect(try ben.dump() == carl.dump())
    }

    @Test("a conflict is decided by the resolver and every client ends with that value", arguments: Backend.allCases)
    func conflictResolvedByResolverConverges(backend: Backend) async throws {
        try await Self.resolverDecisionConverges(through: TestRemote(backend))
    }

    /// Ben's resolver keeps his value against Anna's later edit; every client ends with Ben's value.
    /// Also run on the real servers (ServerSyncScenarioTests).
    static func resolverDecisionConverges(through remote: TestRemote) async throws {
        // Ben keeps his own value whatever the clocks say, if the conflict names both clients.
        let keepLocal = ScriptedDelegate(conflictResolver: ConflictResolver { conflict in
            guard conflict.localClientID?.rawValue == "ben", conflict.remoteClientID?.rawValue == "anna" else {
                throw TestSupportError("the conflict does not name the clients: \(conflict)")
            }
            return .local
        })
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store, delegate: keepLocal)
        let carl = try TestClient("carl", remote: remote.store)
        try anna.execute("INSERT INTO note VALUES ('n1', NULL, 'Title', 'original', 1)")
        try await anna.sync()
        try await ben.sync()
        try await carl.sync()

        try ben.execute("UPDATE note SET title = 'Ben''s title' WHERE id = 'n1'")
        try anna.execute("UPDATE note SET title = 'Anna''s title' WHERE id = 'n1'")  // later clock
        try await anna.sync()
        let benReport = try await ben.sync()
        #expect(benReport.conflicts.count == 1)
        #expect(benReport.conflicts.first?.resolution == .local)
        #expect(benReport.conflicts.first?.conflict.remoteValue == "Anna's title".databaseValue)
        #expect(benReport.conflicts.first?.conflict.remoteClientID?.rawValue == "anna" && benReport.conflicts.first?.conflict.localClientID?.rawValue == "ben")
        for client in [anna, carl, ben, anna, carl] {
            try await client.sync()
        }
        for client in [anna, ben, carl] {
            #expect(try client.value("SELECT title FROM note WHERE id = 'n1'") == "Ben's title".databaseValue)
        }
    }

    @Test("a merged value chosen by the resolver wins everywhere", arguments: Backend.allCases)
    func mergedResolutionConverges(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let merge = ScriptedDelegate(
            conflictResolver: ConflictResolver { conflict in
                let local = String.fromDatabaseValue(conflict.localValue) ?? ""
                let remote = String.fromDatabaseValue(conflict.remoteValue) ?? ""
                return .merged([local, remote].sorted().joined(separator: " + ").databaseValue)
            }
        )
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store, delegate: merge)
        try anna.execute("INSERT INTO note VALUES ('n1', NULL, 'Title', 'start', 1)")
        try await anna.sync()
        try await ben.sync()
        try anna.execute("UPDATE note SET body = 'anna' WHERE id = 'n1'")
        try ben.execute("UPDATE note SET body = 'ben' WHERE id = 'n1'")
        try await anna.sync()
        try await ben.sync()
        try await anna.sync()
        #expect(try anna.value("SELECT body FROM note WHERE id = 'n1'") == "anna + ben".databaseValue)
        #expect(try anna.dump() == ben.dump())
    }

    @Test("delete versus update is reported as a warning and the deletion wins", arguments: Backend.allCases)
    func deleteVersusUpdateWarns(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        try anna.execute("INSERT INTO note VALUES ('n1', NULL, 'Title', 'body', 1)")
        try await anna.sync()
        try await ben.sync()
        try anna.execute("DELETE FROM note WHERE id = 'n1'")
        try ben.execute("UPDATE note SET body = 'edited' WHERE id = 'n1'")
        try await anna.sync()
        let report = try await ben.sync()
        #expect(report.warnings.contains { if case .apply = $0 { true } else { false } })
        try await anna.sync()
        #expect(try anna.count("note") == 0)
        #expect(try ben.count("note") == 0)
    }
}
