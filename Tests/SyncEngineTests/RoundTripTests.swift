import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import Testing

@Suite("Requests per sync")
struct RoundTripTests {
    /// A sync with nothing new: list `IntegrityKey/`, `SyncChanges/` and the other client's
    /// directory, write the new last-sync marker and delete the old one, whatever the history.
    @Test(
        "a sync with nothing new costs five requests, with 10 or 1,000 change sets of history",
        arguments: [(Backend.memory, 10), (.memory, 1_000), (.folder, 10), (.folder, 100)]
    )
    func nothingNewIsConstant(backend: Backend, history: Int) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        try await ben.sync()
        for index in 0..<history {
            try anna.execute("INSERT INTO tag VALUES (?, ?)", ["t\(index)", "tag \(index)"])
            try await anna.sync()
        }
        let catchUp = try await ben.sync()
        #expect(catchUp.appliedSets == history)
        #expect(try ben.count("tag") == history)
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")).count == history)

        await remote.memory?.resetStatistics()
        let report = try await ben.sync()
        #expect(report.requests == 5)
        #expect(report.appliedSets == 0)
        #expect(report.pushedChanges == 0)
        guard let memory = remote.memory else { return }
        let statistics = await memory.statistics
        #expect(statistics.totalRequests == 5)
        #expect(statistics.requests(of: .list) == 3)
        #expect(statistics.requests(of: .upload) == 1)
        #expect(statistics.requests(of: .delete) == 1)
        #expect(statistics.requests(of: .download) == 0)
    }

    @Test("a sync that pushes one set and applies one set costs seven requests")
    func oneSetEachWayCostsSeven() async throws {
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'from anna')")
        try await anna.sync()
        try ben.execute("INSERT INTO tag VALUES ('t2', 'from ben')")
        await memory.resetStatistics()
        let report = try await ben.sync()
        let statistics = await memory.statistics
        #expect(report.requests == 7)
        #expect(statistics.requests(of: .list) == 3)
        #expect(statistics.requests(of: .download) == 1)
        #expect(statistics.requests(of: .upload) == 2)
        #expect(statistics.requests(of: .delete) == 1)
        #expect(report.bytesDownloaded == statistics.bytesDownloaded)
        #expect(report.bytesUploaded == statistics.bytesUploaded)
        #expect(report.bytesDownloaded > 0)
    }
}
