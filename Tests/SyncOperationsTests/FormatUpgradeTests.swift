import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
@testable import SyncCore
import Testing

/// `ApplicationSyncManager.upgradeFormat()`: an application created in format 1 moves to format 2
/// only once every client runs a build that reads it, at any interruption it stays usable, and
/// clients that registered before it keep syncing with those that registered after.
@Suite("Upgrading an application's remote format")
struct FormatUpgradeTests {
    /// Anna and Ben on a format-1 application, with a note each, synced.
    private struct Scenario {
        let remote: TestRemote
        let memory: InMemoryRemoteStore
        let anna: TestClient
        let ben: TestClient

        init() async throws {
            remote = try TestRemote(.memory)
            memory = try remote.faults
            anna = try TestClient("anna", remote: remote.store)
            await anna.application.createNewApplications(inFormat: 1)
            ben = try TestClient("ben", remote: remote.store)
            try anna.execute("INSERT INTO folder VALUES ('f1', 'Work'); INSERT INTO note VALUES ('n1', 'f1', 'Plan', 'draft', 1)")
            try ben.execute("INSERT INTO tag VALUES ('t1', 'urgent')")
            try await anna.sync()
            try await ben.sync()
            try await anna.sync()
        }

        /// `format.json` as stored.
        func formatFile() async throws -> RemoteFormatFile? {
            try await CodedRemote(store: remote.store, codec: PlaintextCodec()).readJSONIfPresent(RemoteFormatFile.self, from: RemotePath("\(Paths.app)/format.json"))
        }

        /// Each client syncs until all hold the same rows with nothing pending.
        func converge(_ clients: [TestClient], comment: Comment? = nil) async throws {
            for _ in 0..<2 {
                for client in clients { try await client.sync() }
            }
            for client in clients {
                #expect(try client.dump() == anna.dump(), comment)
                #expect(try !client.localStore.hasPendingChanges(), comment)
            }
        }
    }

    @Test("format 1 moves to 2; clients registered before and after keep syncing and converge; a quiet sync then costs one listing")
    func upgradeAndConverge() async throws {
        let scenario = try await Scenario()
        let (anna, ben) = (scenario.anna, scenario.ben)
        let report = try await anna.application.upgradeFormat()
        #expect(report == FormatUpgradeReport(previousVersion: 1, version: 2, documents: [TestClient.documentID]))
        let format = try #require(try await scenario.formatFile())
        #expect(format.version == 2 && format.upgradedFrom == 1 && format.createdBy.rawValue == "anna")
        // The key in both places; no upgrade file left behind.
        let formatOneKeys = try await scenario.remote.names(in: "\(Paths.document)/IntegrityKey")
        #expect(formatOneKeys.count == 1)
        #expect(try await scenario.remote.names(in: Paths.recentSyncs).contains(Paths.integrityKeyFile(formatOneKeys[0]).split(separator: "/").last.map(String.init) ?? ""))
        #expect(try await !scenario.remote.names(in: Paths.app).contains("format-upgrade.json"))
        #expect(try await anna.application.upgradeFormat().upgraded == false, "a second call changes nothing")

        // Ben has not registered again: he still writes format 1, anna now writes format 2.
        try anna.execute("UPDATE note SET body = 'final' WHERE id = 'n1'")
        try ben.execute("INSERT INTO tag VALUES ('t2', 'from ben after the upgrade')")
        let carl = try TestClient("carl", remote: scenario.remote.store)
        try await scenario.converge([anna, ben, carl])
        #expect(try anna.value("SELECT label FROM tag WHERE id = 't2'") == "from ben after the upgrade".databaseValue)
        #expect(try ben.value("SELECT body FROM note WHERE id = 'n1'") == "final".databaseValue)
        // Anna's marker announces her newest set (format 2); ben's does not (format 1).
        let markers = try await scenario.remote.recentSyncMarkers().compactMap(RecentSyncName.init(fileName:))
        #expect(markers.first { $0.clientID.rawValue == "anna" }?.newestSet != .unannounced)
        #expect(markers.first { $0.clientID.rawValue == "ben" }?.newestSet == .unannounced)

        // Once ben registers again, a sync with nothing new is one listing for everyone.
        await ben.application.forgetRegistration()
        try await scenario.converge([anna, ben, carl])
        for client in [anna, ben, carl] {
            await scenario.memory.resetStatistics()
            try await client.sync()
            #expect(await scenario.memory.statistics.totalRequests == 1, "\(client.name)")
        }
    }

    @Test("the upgrade waits for a client whose last sync was by a build that reads format 1 only, and for one that never synced")
    func upgradeWaitsForOldClients() async throws {
        let scenario = try await Scenario()
        // Ben's newest record as a build before the field wrote it.
        let marker = try #require(try await scenario.remote.recentSyncMarkers().first { $0.hasPrefix("ben@") })
        let path = try RemotePath("\(Paths.recentSyncs)/\(marker)")
        var record = try #require(try JSONSerialization.jsonObject(with: try await scenario.remote.store.read(path)) as? [String: Any])
        #expect(record["readsFormat"] as? Int == 2)
        record["readsFormat"] = nil
        try await scenario.remote.store.write(try JSONSerialization.data(withJSONObject: record), to: path)
        // Dave registered with the application and never synced: his build is unknown.
        let dave = try TestClient("dave", remote: scenario.remote.store)
        _ = try await dave.application.register()

        let refusal = try await #require(throws: SyncError.self) { try await scenario.anna.application.upgradeFormat() }
        #expect(refusal.code == .clientsNeedUpgrade)
        #expect(refusal.message.contains("ben, dave"), "\(refusal.message)")
        #expect(try await scenario.formatFile()?.version == 1, "nothing changed")
        #expect(try await scenario.remote.integrityKeys().count == 1)

        // Ben syncs with this build; Dave is removed: the upgrade goes through.
        try await scenario.ben.sync()
        try await scenario.anna.application.removeClientFromApplication(try SyncIdentifier("dave"))
        #expect(try await scenario.anna.application.upgradeFormat().upgraded)
        #expect(try await scenario.formatFile()?.version == 2)
    }

    @Test(
        "each call of the upgrade fails in turn, before or after its effect; clients keep syncing meanwhile and calling again completes it",
        arguments: [InMemoryRemoteStore.FailureTiming.beforeEffect, .afterEffect]
    )
    func everyCallFailsInTurn(timing: InMemoryRemoteStore.FailureTiming) async throws {
        var struck = 0
        for primitive in InMemoryRemoteStore.Primitive.allCases {
            for number in 1... {
                let scenario = try await Scenario()
                await scenario.memory.resetStatistics()
                await scenario.memory.failCall(number, of: primitive, timing: timing)
                let outcome: Result<FormatUpgradeReport, any Error>
                do {
                    outcome = .success(try await scenario.anna.application.upgradeFormat())
                } catch {
                    outcome = .failure(error)
                }
                guard await scenario.memory.statistics.requests(of: primitive) >= number else {
                    #expect(throws: Never.self) { try outcome.get() }
                    break
                }
                struck += 1
                await scenario.memory.heal()
                let comment = Comment(rawValue: "\(primitive) #\(number) failing \(timing)")
                if case .failure(let error) = outcome {
                    #expect((error as? SyncError)?.isRetryable == true, comment)
                }
                // Whatever was left half-done, a newcomer joins the same application and everyone syncs.
                let carl = try TestClient("carl", remote: scenario.remote.store)
                try scenario.ben.execute("INSERT INTO tag VALUES ('t-\(struck)', 'during')")
                try await scenario.converge([scenario.anna, scenario.ben, carl], comment: comment)
                #expect(try await scenario.formatFile()?.createdBy.rawValue == "anna", comment)
                // Calling again completes the upgrade.
                _ = try await scenario.anna.application.upgradeFormat()
                #expect(try await scenario.formatFile()?.version == 2, comment)
                #expect(try await !scenario.remote.names(in: Paths.app).contains("format-upgrade.json"), comment)
                #expect(Set(try await scenario.remote.integrityKeys()).count == 1, comment)
                await scenario.ben.application.forgetRegistration()
                try await scenario.converge([scenario.anna, scenario.ben, carl], comment: comment)
            }
        }
        #expect(struck >= 8)
    }

    @Test("a format.json a store could not replace atomically is restored by whoever registers; one lost otherwise is refused, never re-created")
    func missingFormatFile() async throws {
        let scenario = try await Scenario()
        let formatPath = try RemotePath("\(Paths.app)/format.json")
        let upgradePath = try RemotePath("\(Paths.app)/format-upgrade.json")
        // The moment of a non-atomic replacement: the new file written aside, the old one gone.
        var upgraded = try #require(try await scenario.formatFile())
        upgraded.version = 2
        upgraded.upgradedFrom = 1
        try await CodedRemote(store: scenario.remote.store, codec: PlaintextCodec()).writeJSON(upgraded, to: upgradePath)
        try await scenario.remote.store.delete(formatPath)
        let carl = try TestClient("carl", remote: scenario.remote.store)
        try await carl.sync()
        #expect(try await scenario.formatFile() == upgraded)
        try await scenario.remote.store.delete(upgradePath)

        // Lost by hand, with clients registered: refused, and nothing is created in its place.
        try await scenario.remote.store.delete(formatPath)
        let dave = try TestClient("dave", remote: scenario.remote.store)
        let refusal = try await #require(throws: SyncError.self) { try await dave.sync() }
        #expect(refusal.code == .corruptRemoteData, "\(refusal)")
        #expect(try await scenario.formatFile() == nil)
    }

    @Test("a document created after the upgrade by a client still on format 1 is joined by format 2 clients without a new key")
    func documentCreatedByStraggler() async throws {
        let scenario = try await Scenario()
        _ = try await scenario.anna.application.upgradeFormat()
        let second = try SyncIdentifier("second")
        // Ben's application manager still holds format 1: his new document has its key in format
        // 1's place only.
        let benSecond = try TestClient("ben", remote: scenario.remote.store, documentID: second, sharing: scenario.ben.application)
        try benSecond.execute("INSERT INTO tag VALUES ('s1', 'in the second document')")
        try await benSecond.sync()
        let keys = try await scenario.remote.names(in: "\(Paths.app)/Documents/second/IntegrityKey")
        #expect(keys.count == 1)
        #expect(try await scenario.remote.names(in: "\(Paths.app)/Documents/second/RecentSyncs").allSatisfy { !$0.hasSuffix(".integritykey") })

        let annaSecond = try TestClient("anna", remote: scenario.remote.store, documentID: second)
        try await annaSecond.sync()
        try annaSecond.execute("INSERT INTO tag VALUES ('s2', 'from anna')")
        try await annaSecond.sync()
        try await benSecond.sync()
        try await annaSecond.sync()
        #expect(try annaSecond.dump() == benSecond.dump())
        #expect(try benSecond.value("SELECT label FROM tag WHERE id = 's2'") == "from anna".databaseValue)
        #expect(try await scenario.remote.names(in: "\(Paths.app)/Documents/second/IntegrityKey") == keys, "no second key")
    }
}
