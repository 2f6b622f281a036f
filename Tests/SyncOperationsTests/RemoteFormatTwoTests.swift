import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
@testable import SyncCore
import Testing

/// Format 2's last-sync markers name each client's newest change set, and readers skip the
/// directories of clients whose named set they applied. These tests break the ways that could
/// miss a set: a marker naming a set that never arrived, markers deleted behind a client's back,
/// a client removed while it syncs. Format 2 also compresses change sets.
@Suite("Remote format 2: announced and compressed change sets")
struct RemoteFormatTwoTests {
    private func markers(of client: String, on remote: TestRemote) async throws -> [RecentSyncName] {
        try await remote.recentSyncMarkers().compactMap(RecentSyncName.init(fileName:)).filter { $0.clientID.rawValue == client }
    }

    @Test("marker names of both formats round-trip; the newest named set wins, a later marker breaks a clock tie")
    func markerNames() throws {
        let anna = try SyncIdentifier("anna")
        let date = Date(timeIntervalSince1970: 1_795_000_000.123)
        let older = ChangeSetName(clock: HLCTimestamp(rawValue: 0x1a2), id: "ZZZ")
        let newer = ChangeSetName(clock: HLCTimestamp(rawValue: 0x1a3), id: "AAA")
        let rewritten = ChangeSetName(clock: HLCTimestamp(rawValue: 0x1a3), id: "0")
        for newest in [RecentSyncName.NewestSet.unannounced, .nothingPushed, .set(older)] {
            let name = RecentSyncName(clientID: anna, date: date, newestSet: newest)
            #expect(RecentSyncName(fileName: name.fileName) == name)
        }
        #expect(RecentSyncName(clientID: anna, date: date).fileName == "anna@20261118T110640.123Z.recentsync")
        #expect(RecentSyncName(clientID: anna, date: date, newestSet: .set(older)).fileName == "anna@20261118T110640.123Z@00000000000001a2-ZZZ.recentsync")
        for broken in ["anna@20261118T110640.123Z@.recentsync", "anna@20261118T110640.123Z@nothing.recentsync", "anna@x@none.recentsync", "a@b@c@d.recentsync"] {
            #expect(RecentSyncName(fileName: broken) == nil, "\(broken)")
        }
        func item(_ name: RecentSyncName) -> RemoteItem {
            RemoteItem(path: try! RemotePath(name.fileName), kind: .file)
        }
        let later = date.addingTimeInterval(1)
        let listed = [
            item(RecentSyncName(clientID: anna, date: later, newestSet: .set(older))),
            item(RecentSyncName(clientID: anna, date: date, newestSet: .set(newer))),
            item(RecentSyncName(clientID: try SyncIdentifier("ben"), date: date, newestSet: .nothingPushed)),
            item(RecentSyncName(clientID: try SyncIdentifier("carl"), date: date, newestSet: .set(older))),
            item(RecentSyncName(clientID: try SyncIdentifier("carl"), date: date)),
        ]
        let newest = RecentSyncName.newestSetsByClient(in: listed)
        #expect(newest == [anna: .set(newer), try SyncIdentifier("ben"): .nothingPushed, try SyncIdentifier("carl"): .unannounced])
        let tie = RecentSyncName.newestSetsByClient(in: [
            item(RecentSyncName(clientID: anna, date: date, newestSet: .set(newer))),
            item(RecentSyncName(clientID: anna, date: later, newestSet: .set(rewritten))),
        ])
        #expect(tie == [anna: .set(rewritten)])
    }

    @Test("a marker naming a set whose upload failed costs readers a listing and misses nothing")
    func announcedSetThatNeverArrived() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'first')")
        // The marker is the first upload, the set the second: the set never arrives.
        await memory.failCall(2, of: .upload)
        await #expect(throws: SyncError.self) { try await anna.sync() }
        let announced = try #require(try await markers(of: "anna", on: remote).compactMap { marker -> ChangeSetName? in
            if case .set(let set) = marker.newestSet { return set }
            return nil
        }.max())
        #expect(try await !remote.names(in: Paths.changeSets(of: "anna")).contains(announced.fileName))

        await memory.resetStatistics()
        let idle = try await ben.sync()
        #expect(idle.appliedSets == 0)
        #expect(await memory.statistics.requests(of: .list) == 2, "RecentSyncs/, then anna's directory")

        let retried = try await anna.sync()
        #expect(retried.pushedChanges == 1)
        let caughtUp = try await ben.sync()
        #expect(caughtUp.appliedSets == 1)
        #expect(try ben.dump() == anna.dump())
        await memory.resetStatistics()
        _ = try await ben.sync()
        let lists = await memory.statistics.requests(of: .list)
        let listed = try await remote.recentSyncMarkers()
        #expect(lists == 1, "nothing new: only RecentSyncs/ \(listed)")
    }

    @Test("a client whose markers were deleted lists everything and announces its newest set again")
    func markersDeletedBehindAClientsBack() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'first')")
        try await anna.sync()
        let newest = try #require(try await remote.names(in: Paths.changeSets(of: "anna")).compactMap(ChangeSetName.init(fileName:)).max())
        for marker in try await markers(of: "anna", on: remote) {
            try await remote.store.delete(RemotePath("\(Paths.recentSyncs)/\(marker.fileName)"))
        }
        // Ben never saw anna's set; with no marker of anna he does not list her directory…
        #expect(try await ben.sync().appliedSets == 0)
        // …until anna syncs: her marker is gone, so she lists every directory and names her newest set.
        try await anna.sync()
        #expect(try await markers(of: "anna", on: remote).map(\.newestSet) == [.set(newest)])
        #expect(try await ben.sync().appliedSets == 1)
        #expect(try ben.dump() == anna.dump())
    }

    @Test("a client removed while it syncs learns it at its next push and keeps its changes")
    func removedWhileSyncing() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        // The removal deleted ben's directory after ben wrote a new marker: ben still finds a marker.
        try await remote.store.write(Data("{}".utf8), to: RemotePath("\(Paths.document)/DeletedClients/ben.json"))
        try await remote.store.delete(RemotePath(Paths.changeSets(of: "ben")))
        #expect(try await !markers(of: "ben", on: remote).isEmpty)

        try ben.execute("INSERT INTO tag VALUES ('t-ben', 'kept')")
        let report = try await ben.sync()
        #expect(report.warnings.contains(.clientWasRemoved(TestClient.documentID)))
        #expect(report.pushedChanges == 1)
        try await anna.sync()
        #expect(try anna.value("SELECT label FROM tag WHERE id = 't-ben'") == "kept".databaseValue)
        #expect(try ben.dump() == anna.dump())
    }

    @Test("idle clients polling do not wake each other; a pushed set does")
    func pollingSeesPublicationsOnly() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let before = try await ben.manager.otherClientsPublications()
        try await anna.sync()
        #expect(try await ben.manager.otherClientsPublications() == before)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'first')")
        try await anna.sync()
        #expect(try await ben.manager.otherClientsPublications() != before)
    }

    @Test("format 2 stores change sets compressed and format 1 as they are; a damaged compressed set is held back")
    func compressedSets() async throws {
        for format in [1, 2] {
            let remote = try TestRemote(.memory)
            let (anna, ben) = try await { () async throws -> (TestClient, TestClient) in
                let anna = try TestClient("anna", remote: remote.store)
                await anna.application.createNewApplications(inFormat: format)
                try await anna.sync()
                let ben = try TestClient("ben", remote: remote.store)
                try await ben.sync()
                return (anna, ben)
            }()
            for row in 0..<300 {
                try anna.execute("INSERT INTO tag VALUES (?, ?)", ["t\(row)", "a tag with a label like every other tag \(row)"])
            }
            try await anna.sync()
            let name = try #require(try await remote.names(in: Paths.changeSets(of: "anna")).first)
            let path = try RemotePath("\(Paths.changeSets(of: "anna"))/\(name)")
            let stored = try await remote.store.read(path)
            #expect(stored.prefix(4) == Data(format == 2 ? "RSCZ".utf8 : "RSCS".utf8), "format \(format)")
            if format == 2 {
                var damaged = stored
                damaged[damaged.count - 5] ^= 0xFF
                try await remote.store.write(damaged, to: path)
                let held = try await ben.sync()
                #expect(held.appliedSets == 0)
                #expect(held.warnings.contains { if case .unreadableChangeSet = $0 { true } else { false } })
                try await remote.store.write(stored, to: path)
            }
            #expect(try await ben.sync().appliedSets == 1)
            #expect(try ben.dump() == anna.dump())
        }
    }
}
