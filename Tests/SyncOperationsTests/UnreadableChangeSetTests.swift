import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import Testing

@Suite("Change sets that cannot be used")
struct UnreadableChangeSetTests {
    @Test("a corrupt set is reported, holds back its client's later sets, and never stops other clients", arguments: Backend.allCases)
    func corruptSetHoldsBackOnlyItsClient(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let carl = try TestClient("carl", remote: remote.store)
        try anna.execute("INSERT INTO tag VALUES ('a1', 'first from anna')")
        try await anna.sync()
        try anna.execute("INSERT INTO tag VALUES ('a2', 'second from anna')")
        try await anna.sync()
        try carl.execute("INSERT INTO tag VALUES ('c1', 'from carl')")
        try await carl.sync()
        let annaSets = try await remote.names(in: Paths.changeSets(of: "anna"))
        #expect(annaSets.count == 2)
        let first = try RemotePath("\(Paths.changeSets(of: "anna"))/\(annaSets[0])")
        var bytes = try await remote.store.read(first)
        bytes[bytes.count / 2] ^= 0xFF
        try await remote.store.write(bytes, to: first)

        let report = try await ben.sync()
        #expect(report.warnings.contains { warning in
            if case .unreadableChangeSet(let name, let client, _) = warning { name == annaSets[0] && client.rawValue == "anna" } else { false }
        })
        #expect(try ben.value("SELECT label FROM tag WHERE id = 'c1'") == "from carl".databaseValue)
        #expect(try ben.value("SELECT count(*) FROM tag WHERE id LIKE 'a%'") == 0.databaseValue)

        // Once the damaged file is gone (for example replaced by a whole store), the rest follows.
        try await remote.store.delete(first)
        let next = try await ben.sync()
        #expect(next.warnings.isEmpty)
        #expect(try ben.value("SELECT label FROM tag WHERE id = 'a2'") == "second from anna".databaseValue)
    }

    @Test("after a whole-store install, an own set held back behind another client's unusable set is applied once that set is")
    func ownSetHeldBackAfterAnInstallWaits() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        _ = try await anna.manager.uploadWholeStore()
        try ben.execute("INSERT INTO tag VALUES ('b1', 'from ben')")
        try await ben.sync()
        try await anna.sync()
        try anna.execute("UPDATE tag SET label = 'renamed by anna' WHERE id = 'b1'")
        try anna.execute("INSERT INTO folder VALUES ('f1', 'anna''s folder')")
        try await anna.sync()
        let benSet = try RemotePath("\(Paths.changeSets(of: "ben"))/\(try #require(try await remote.names(in: Paths.changeSets(of: "ben")).last))")
        let intact = try await remote.store.read(benSet)
        var damaged = intact
        damaged[damaged.count / 2] ^= 0xFF
        try await remote.store.write(damaged, to: benSet)

        // Anna re-bases on her early store: ben's set cannot be read, and her own set, which edits
        // the tag ben's set creates, waits behind it.
        let install = try await anna.manager.downloadWholeStore(from: anna.name)
        #expect(install.warnings.contains { warning in
            if case .waitsForHeldBackSets(_, let client, _) = warning { client == anna.name } else { false }
        })
        #expect(try anna.value("SELECT count(*) FROM folder") == 0.databaseValue)
        try await anna.sync()
        #expect(try anna.value("SELECT count(*) FROM folder") == 0.databaseValue, "still waiting")

        try await remote.store.write(intact, to: benSet)
        try await anna.sync()
        #expect(try anna.value("SELECT name FROM folder WHERE id = 'f1'") == "anna's folder".databaseValue, "her own set arrived")
        #expect(try anna.value("SELECT label FROM tag WHERE id = 'b1'") == "renamed by anna".databaseValue)
        #expect(try !anna.localStore.hasPendingChanges())
    }

    @Test("a set whose content names another set is refused; files that are not sets are ignored", arguments: Backend.allCases)
    func misnamedAndForeignFiles(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO tag VALUES ('a1', 'from anna')")
        try await anna.sync()
        let directory = Paths.changeSets(of: "anna")
        let original = try #require(try await remote.names(in: directory).first)
        let impostor = "ffffffffffffffff-00000000-0000-0000-0000-000000000000.syncchg"
        try await remote.store.copy(RemotePath("\(directory)/\(original)"), to: RemotePath("\(directory)/\(impostor)"))
        try await remote.store.write(Data("not a change set".utf8), to: RemotePath("\(directory)/notes.txt"))
        try await remote.store.write(Data(), to: RemotePath("\(directory)/.hidden"))

        let report = try await ben.sync()
        #expect(report.appliedSets == 1)
        #expect(report.warnings.count == 1)
        guard case .unreadableChangeSet(let name, _, let reason) = report.warnings.first else {
            Issue.record("expected an unreadable-set warning, got \(report.warnings)")
            return
        }
        #expect(name == impostor)
        #expect(reason.contains("names the set"))
        #expect(try ben.dump() == anna.dump())
    }
}
