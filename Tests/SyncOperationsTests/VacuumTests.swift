import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
import SyncCore
import Testing

@Suite("Vacuum")
struct VacuumTests {
    @Test("a client that only applies tells vacuum at its next record (its next push here), never before")
    func applyOnlySyncsAcknowledgeLater() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        for client in [anna, ben] { try await client.sync() }
        try anna.execute("INSERT INTO folder VALUES ('f1', 'f')")
        let pushed = try #require(try await anna.sync().pushedSetName)
        #expect(try await ben.sync().appliedSets == 1)
        _ = try await anna.manager.uploadWholeStore()

        let held = try await anna.manager.vacuum()
        #expect(held.removedSets.isEmpty)
        #expect(held.holds.map(\.client) == [ben.name] && held.holds.map(\.reason) == [.notApplied])

        try ben.execute("INSERT INTO tag VALUES ('t1', 'ben')")
        try await ben.sync()
        #expect(try await anna.manager.vacuum().removedSets == [pushed])
        try await anna.sync()
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a vacuum with nothing it could remove reads no client's record: its client pushed nothing, or no whole store holds its sets")
    func heldVacuumReadsNoRecords() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        let carl = try TestClient("carl", remote: remote.store)
        for client in [anna, ben, carl] { try await client.sync() }

        await memory.resetStatistics()
        let nothingPushed = try await carl.manager.vacuum()
        #expect(nothingPushed.removedSets.isEmpty && nothingPushed.keptSets == 0 && nothingPushed.holds.isEmpty)
        #expect(await memory.statistics.requests(of: .download) == 0)

        try anna.execute("INSERT INTO folder VALUES ('f1', 'f')")
        let pushed = try #require(try await anna.sync().pushedSetName)
        for client in [ben, carl] { _ = try await client.manager.vacuum() }  // each records what it applied
        await memory.resetStatistics()
        let withoutStore = try await anna.manager.vacuum()
        #expect(withoutStore.removedSets.isEmpty && withoutStore.keptSets == 1)
        #expect(withoutStore.holds.map(\.reason) == [.noWholeStore])
        #expect(await memory.statistics.requests(of: .download) == 0)

        _ = try await anna.manager.uploadWholeStore()
        await memory.resetStatistics()
        #expect(try await anna.manager.vacuum().removedSets == [pushed])
        #expect(await memory.statistics.requests(of: .download) >= 2, "ben's and carl's records")
    }

    @Test("a last-sync record that cannot be read holds vacuum back instead of failing it")
    func unreadableRecordHolds() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        for client in [anna, ben] { try await client.sync() }
        try anna.execute("INSERT INTO folder VALUES ('f1', 'f')")
        let pushed = try #require(try await anna.sync().pushedSetName)
        _ = try await ben.manager.vacuum()
        _ = try await anna.manager.uploadWholeStore()
        let bensMarker = try #require(try await remote.recentSyncMarkers().first { $0.hasPrefix("ben@") })
        let intact = try await remote.store.read(RemotePath("\(Paths.recentSyncs)/\(bensMarker)"))
        try await remote.store.write(Data("not json".utf8), to: RemotePath("\(Paths.recentSyncs)/\(bensMarker)"))

        let held = try await anna.manager.vacuum()
        #expect(held.removedSets.isEmpty)
        #expect(held.holds.map(\.client) == [ben.name] && held.holds.map(\.reason) == [.notApplied])
        try await remote.store.write(intact, to: RemotePath("\(Paths.recentSyncs)/\(bensMarker)"))
        #expect(try await anna.manager.vacuum().removedSets == [pushed])
    }

    @Test("vacuum removes exactly the sets every client applied and every whole store contains", arguments: Backend.allCases)
    func removesExactlyWhatIsSafe(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        // Every sync records itself, so each client's record says what it applied at once.
        let anna = try TestClient("anna", remote: remote.store, lastSyncRecordInterval: .zero)
        let ben = try TestClient("ben", remote: remote.store, lastSyncRecordInterval: .zero)
        let carl = try TestClient("carl", remote: remote.store, lastSyncRecordInterval: .zero)
        for client in [anna, ben, carl] { try await client.sync() }
        var pushed: [String] = []
        for index in 1...2 {
            try anna.execute("INSERT INTO folder VALUES (?, 'f')", ["f\(index)"])
            pushed.append(try #require(try await anna.sync().pushedSetName))
        }
        try await ben.sync()
        try await carl.sync()
        try anna.execute("INSERT INTO folder VALUES ('f3', 'f')")
        pushed.append(try #require(try await anna.sync().pushedSetName))
        let carlsLastSync = try #require(try await anna.application.clients(of: TestClient.documentID).first { $0.clientID == carl.name }?.lastSyncDate)
        try await ben.sync()
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")) == pushed)

        // No whole store yet: nothing may go, since nothing could bootstrap a new client.
        let withoutStore = try await anna.manager.vacuum()
        #expect(withoutStore.removedSets.isEmpty)
        #expect(withoutStore.holds.contains { $0.reason == .noWholeStore })
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")) == pushed)

        let unit = try await anna.manager.uploadWholeStore().unit
        let report = try await anna.manager.vacuum()
        #expect(report.removedSets == Array(pushed.prefix(2)))
        #expect(report.keptSets == 1)
        #expect(report.holds == [.init(client: carl.name, reason: .notApplied, since: carlsLastSync)])
        let marker = String(pushed[1].dropLast("syncchg".count)) + "vacuumed"
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")) == [pushed[2], marker].sorted())
        #expect(try await remote.units(of: "anna") == [unit.directoryName])

        // Once carl has applied the last set and a whole store contains it, it goes too.
        try await carl.sync()
        let later = try await anna.manager.vacuum()
        #expect(later.removedSets == [pushed[2]])
        let lastMarker = String(pushed[2].dropLast("syncchg".count)) + "vacuumed"
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")) == [lastMarker])

        // Every client still converges afterwards, and a new one bootstraps.
        try ben.execute("INSERT INTO tag VALUES ('t1', 'after')")
        try await ben.sync()
        for client in [anna, carl] { try await client.sync() }
        let dana = try TestClient("dana", remote: remote.store)
        let bootstrap = try await dana.sync()
        #expect(bootstrap.wholeStoreInstalled != nil)
        #expect(try dana.dump() == anna.dump())
        #expect(try carl.dump() == ben.dump())
    }

    @Test("a whole store lacking a set holds vacuum back; vacuums on several clients at once are safe")
    func wholeStoreHoldsAndConcurrentVacuums() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote, lastSyncRecordInterval: .zero)
        _ = try await ben.manager.uploadWholeStore()
        try anna.execute("INSERT INTO folder VALUES ('f1', 'a')")
        try ben.execute("INSERT INTO folder VALUES ('f2', 'b')")
        try await anna.sync()
        try await ben.sync()
        try await anna.sync()
        try await ben.sync()
        let annaSet = try await remote.names(in: Paths.changeSets(of: "anna"))
        let report = try await anna.manager.vacuum()
        #expect(report.removedSets.isEmpty)
        #expect(report.holds.map(\.client) == [ben.name])
        if case .wholeStoreLacksSet = report.holds.first?.reason {} else { Issue.record("expected a whole-store hold") }
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")) == annaSet)

        _ = try await ben.manager.uploadWholeStore()
        _ = try await anna.manager.uploadWholeStore()
        async let annaVacuum = anna.manager.vacuum()
        async let benVacuum = ben.manager.vacuum()
        let (a, b) = try await (annaVacuum, benVacuum)
        #expect(a.removedSets.count == 1)
        #expect(b.removedSets.count == 1)
        try anna.execute("UPDATE folder SET name = 'a2' WHERE id = 'f1'")
        try await anna.sync()
        try await ben.sync()
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a client that slept through a vacuum re-bootstraps and keeps its unpushed edits", arguments: Backend.allCases)
    func sleepingClientConverges(backend: Backend) async throws {
        try await Self.sleepingClientConverges(through: try TestRemote(backend))
    }

    /// The sleeping-client scenario, on any remote (also run through the real servers).
    static func sleepingClientConverges(through remote: TestRemote) async throws {
        let (anna, ben) = try await TestClient.syncedPair(on: remote, lastSyncRecordInterval: .zero)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'One', 'a', 1)")
        try await anna.sync()
        try await ben.sync()
        // Ben goes to sleep with an offline edit.
        try ben.execute("UPDATE note SET body = 'ben offline' WHERE id = 'n1'; INSERT INTO tag VALUES ('t1', 'ben')")
        try anna.execute("INSERT INTO note VALUES ('n2', 'f1', 'Two', 'b', 2)")
        try await anna.sync()

        _ = try await anna.manager.uploadWholeStore()
        let held = try await anna.manager.vacuum()
        #expect(held.removedSets.count == 1)
        #expect(held.holds.contains { $0.client == ben.name && $0.reason == .notApplied })

        let retiring = try await anna.manager.vacuum(VacuumOptions(retireClientsSilentFor: 0, now: Date().addingTimeInterval(1)))
        #expect(retiring.retiredClients == [ben.name])
        #expect(retiring.removedSets.count == 1)

        let woke = try await ben.sync()
        let installed = try #require(woke.wholeStoreInstalled)
        #expect(installed.client == anna.name)
        #expect(installed.installation.rebasedChanges == 2)
        #expect(woke.pushedChanges == 2)
        try await anna.sync()
        #expect(try anna.value("SELECT body FROM note WHERE id = 'n1'") == "ben offline".databaseValue)
        #expect(try anna.count("note") == 2)
        #expect(try anna.dump() == ben.dump())
    }
}
