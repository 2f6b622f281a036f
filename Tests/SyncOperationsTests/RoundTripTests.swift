import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
@testable import SyncCore
import Testing

@Suite("Requests per sync")
struct RoundTripTests {
    /// A sync with nothing new (format 2): one listing of `RecentSyncs/` (the integrity key and
    /// every client's newest set), and no write (the marker is kept: see
    /// ``SyncConfiguration/lastSyncRecordInterval``), whatever the number of clients and the
    /// length of history.
    @Test(
        "a sync with nothing new costs one listing and writes nothing, whatever the number of clients and the history",
        arguments: [(Backend.memory, 2, 10), (.memory, 2, 1_000), (.memory, 10, 10), (.memory, 30, 3), (.folder, 2, 10), (.folder, 10, 100)]
    )
    func nothingNewIsConstant(backend: Backend, clients: Int, history: Int) async throws {
        let remote = try TestRemote(backend)
        let writers = try (0..<clients - 1).map { try TestClient("writer\($0)", remote: remote.store) }
        let ben = try TestClient("ben", remote: remote.store)
        try await ben.sync()
        for index in 0..<history {
            let writer = writers[index % writers.count]
            try writer.execute("INSERT INTO tag VALUES (?, ?)", ["t\(index)", "tag \(index)"])
            try await writer.sync()
        }
        for writer in writers.dropFirst(history) {
            try await writer.sync()
        }
        let catchUp = try await ben.sync()
        #expect(catchUp.appliedSets == history)
        #expect(try ben.count("tag") == history)

        await remote.memory?.resetStatistics()
        let report = try await ben.sync()
        #expect(report.requests == 1)
        #expect(report.writeCalls == 0)
        #expect(report.appliedSets == 0)
        #expect(report.pushedChanges == 0)
        guard let memory = remote.memory else { return }
        let statistics = await memory.statistics
        #expect(statistics.requests == [.list: 1])
    }

    @Test("a sync applying one new set of one client among 30 costs two listings and the download, and writes nothing")
    func oneNewSetAmongManyClients() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let writers = try (0..<29).map { try TestClient("writer\($0)", remote: remote.store) }
        let ben = try TestClient("ben", remote: remote.store)
        for writer in writers {
            try writer.execute("INSERT INTO tag VALUES (?, ?)", ["t-\(writer.name)", "first"])
            try await writer.sync()
        }
        try await ben.sync()
        try writers[17].execute("UPDATE tag SET label = 'second' WHERE id = ?", ["t-\(writers[17].name)"])
        try await writers[17].sync()

        await memory.resetStatistics()
        let report = try await ben.sync()
        let statistics = await memory.statistics
        #expect(report.appliedSets == 1)
        #expect(try ben.value("SELECT label FROM tag WHERE id = ?", ["t-\(writers[17].name)"]) == "second".databaseValue)
        #expect(statistics.requests(of: .download) == 1)
        #expect(report.requests == 2 + 1)
        #expect(report.writeCalls == 0)
        #expect(statistics.requests(of: .list) == 2)
    }

    @Test("a sync that pushes one set and applies one set costs six requests")
    func oneSetEachWayCostsSix() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'from anna')")
        try await anna.sync()
        try ben.execute("INSERT INTO tag VALUES ('t2', 'from ben')")
        await memory.resetStatistics()
        let report = try await ben.sync()
        let statistics = await memory.statistics
        #expect(report.requests == 6)
        #expect(statistics.requests(of: .list) == 2)
        #expect(statistics.requests(of: .download) == 1)
        #expect(statistics.requests(of: .upload) == 2)
        #expect(statistics.requests(of: .delete) == 1)
        #expect(report.bytesDownloaded == statistics.bytesDownloaded)
        #expect(report.bytesUploaded == statistics.bytesUploaded)
        #expect(report.bytesDownloaded > 0)
    }

    /// Format 1 (applications created before format 2) is still read and written as it was:
    /// `IntegrityKey/`, `SyncChanges/` and every other client's directory are listed.
    @Test("an application of format 1 keeps its layout and costs one listing per client")
    func formatOneKeepsItsLayout() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let clients = try ["anna", "ben", "carl"].map { try TestClient($0, remote: remote.store) }
        await clients[0].application.createNewApplications(inFormat: 1)
        for (index, client) in clients.enumerated() {
            try client.execute("INSERT INTO tag VALUES (?, ?)", ["t\(index)", "from \(client.name)"])
            try await client.sync()
        }
        for client in clients {
            try await client.sync()
        }
        #expect(try await remote.names(in: Paths.app).contains("format.json"))
        let format = try JSONSerialization.jsonObject(with: try await remote.store.read(RemotePath("\(Paths.app)/format.json")))
        #expect((format as? [String: Any])?["version"] as? Int == 1)
        #expect(try await remote.names(in: "\(Paths.document)/IntegrityKey").count == 1)
        #expect(try await remote.names(in: Paths.recentSyncs).allSatisfy { !$0.hasSuffix(".integritykey") })
        #expect(try await remote.recentSyncMarkers().allSatisfy { RecentSyncName(fileName: $0)?.newestSet == .unannounced })
        for client in clients {
            #expect(try client.dump() == clients[0].dump())
        }
        await memory.resetStatistics()
        let report = try await clients[1].sync()
        // `IntegrityKey/`, `SyncChanges/`, two other clients' directories; the marker and its predecessor.
        #expect(report.requests == 4 + 2)
        #expect(await memory.statistics.requests(of: .list) == 4)
    }
}
