import Foundation
import InMemoryRemote
import RemoteProtocol
@testable import SyncCore
import Testing

/// Which syncs rewrite a client's last-sync marker (issue 31, target 5): a sync that pushes always
/// does; one that pushes nothing keeps a listed, current marker younger than
/// `lastSyncRecordInterval`, so a sync with nothing new is one listing and writes nothing.
@Suite("Last-sync records")
struct LastSyncRecordTests {
    private func markers(of client: SyncIdentifier, on remote: TestRemote) async throws -> [String] {
        try await remote.recentSyncMarkers().filter { RecentSyncName(fileName: $0)?.clientID == client }
    }

    @Test("a sync with nothing new is one listing and writes nothing; a sync that only applies adds only its downloads")
    func quietSyncsWriteNothing() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try await anna.sync()
        let bensMarkers = try await markers(of: ben.name, on: remote)
        #expect(bensMarkers.count == 1)

        await memory.resetStatistics()
        let idle = try await ben.sync()
        #expect(await memory.statistics.requests == [.list: 1], "one listing of RecentSyncs/")
        #expect(idle.requests == 1 && idle.storeCalls == 1 && idle.writeCalls == 0)
        #expect(try await markers(of: ben.name, on: remote) == bensMarkers)

        try anna.execute("INSERT INTO tag VALUES ('t1', 'first')")
        try await anna.sync()
        await memory.resetStatistics()
        let applying = try await ben.sync()
        #expect(applying.appliedSets == 1 && applying.writeCalls == 0)
        let statistics = await memory.statistics
        #expect(statistics.requests == [.list: 2, .download: 1], "RecentSyncs/, anna's directory, her set: \(statistics.requests)")
        #expect(statistics.bytesUploaded == 0)
        #expect(try await markers(of: ben.name, on: remote) == bensMarkers)
        #expect(try ben.dump() == anna.dump())
    }

    @Test("a sync that pushes replaces the marker with one naming its set")
    func pushRecords() async throws {
        let remote = try TestRemote(.memory)
        let (_, ben) = try await TestClient.syncedPair(on: remote)
        let before = try await markers(of: ben.name, on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'first')")
        let report = try await ben.sync()
        let pushed = try #require(report.pushedSetName)
        #expect(report.writeCalls == 3, "the new marker, the set, the old marker's deletion")
        let after = try await markers(of: ben.name, on: remote)
        #expect(after.count == 1 && after != before)
        #expect(after.compactMap(RecentSyncName.init(fileName:)).map(\.newestSet) == [.set(try #require(ChangeSetName(fileName: pushed)))])
    }

    @Test("a marker older than the interval, or any marker with the interval zero, is rewritten by a sync with nothing new")
    func oldMarkersAreRewritten() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, lastSyncRecordInterval: .zero)
        let ben = try TestClient("ben", remote: remote.store, lastSyncRecordInterval: .milliseconds(1))
        for client in [anna, ben] { try await client.sync() }
        for client in [anna, ben] {
            let before = try await markers(of: client.name, on: remote)
            // A sleep only ever lasts longer: ben's marker is then older than his millisecond.
            try await Task.sleep(for: .milliseconds(5))
            let report = try await client.sync()
            #expect(report.pushedChanges == 0 && report.appliedSets == 0)
            let after = try await markers(of: client.name, on: remote)
            #expect(after.count == 1 && after != before, "\(client.name): \(before) → \(after)")
            let dates = (before + after).compactMap(RecentSyncName.init(fileName:)).map(\.date)
            #expect(dates == dates.sorted())
        }
    }

    @Test("a marker deleted behind a client's back is written again by its next sync, even with nothing new")
    func lostMarkerIsRewritten() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        for marker in try await markers(of: ben.name, on: remote) {
            try await remote.store.delete(RemotePath("\(Paths.recentSyncs)/\(marker)"))
        }
        let report = try await ben.sync()
        #expect(report.pushedChanges == 0)
        #expect(try await markers(of: ben.name, on: remote).count == 1)
        // …and the marker anna lists for him is his again.
        let listed = try await anna.application.clients(of: TestClient.documentID).first { $0.clientID == ben.name }
        #expect(listed?.lastSyncDate != nil)
    }

    @Test("a marker whose upload failed is written by the next sync with nothing new, then the syncs are quiet again")
    func failedMarkerUploadIsRetried() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let (_, ben) = try await TestClient.syncedPair(on: remote)
        for marker in try await markers(of: ben.name, on: remote) {
            try await remote.store.delete(RemotePath("\(Paths.recentSyncs)/\(marker)"))
        }
        await memory.failCall(1, of: .upload)
        let warned = try await ben.sync()
        #expect(warned.warnings.contains { if case .lastSyncNotRecorded = $0 { true } else { false } })
        #expect(try await markers(of: ben.name, on: remote).isEmpty)

        let retried = try await ben.sync()
        #expect(retried.warnings.isEmpty)
        #expect(try await markers(of: ben.name, on: remote).count == 1)
        await memory.resetStatistics()
        _ = try await ben.sync()
        #expect(await memory.statistics.requests == [.list: 1])
    }
}
