import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
@testable import SyncCore
import Testing

@Suite("Failures at every remote call of a sync")
struct SyncFaultTests {
    /// Whose sync fails.
    enum Variant: String, CaseIterable, CustomStringConvertible {
        /// Ben, registered: his sync lists, downloads and applies Anna's set, pushes and records.
        case registered
        /// Carl, new: his first sync also registers him with the application and the document.
        case newcomer
        /// Anna, the very first client: her first sync creates the application and the document.
        case founder

        var description: String { rawValue }
    }

    /// Anna's folder and note, and the target's own edits, waiting to be synced.
    private struct Scenario {
        let remote: TestRemote
        let memory: InMemoryRemoteStore
        let anna: TestClient
        let ben: TestClient
        /// The client whose sync fails.
        let target: TestClient

        init(_ variant: Variant, format: Int) async throws {
            remote = try TestRemote(.memory)
            memory = try remote.faults
            anna = try TestClient("anna", remote: remote.store)
            await anna.application.createNewApplications(inFormat: format)
            ben = try TestClient("ben", remote: remote.store)
            if variant != .founder {
                try await anna.sync()
                try await ben.sync()
            }
            try anna.execute("""
                INSERT INTO folder VALUES ('f1', 'Work');
                INSERT INTO note VALUES ('n1', 'f1', 'Plan', 'draft', 1);
                """)
            switch variant {
            case .registered: target = ben
            case .newcomer: target = try TestClient("carl", remote: remote.store)
            case .founder: target = anna
            }
            if variant != .founder {
                try await anna.sync()
            }
            try target.execute("""
                INSERT INTO tag VALUES ('t-\(target.name)', 'from \(target.name)');
                UPDATE tag SET label = label || ' (edited)';
                """)
        }
    }

    @Test(
        "each call of a sync fails in turn, before or after its effect; the next sync converges with nothing lost or duplicated",
        arguments: [InMemoryRemoteStore.FailureTiming.beforeEffect, .afterEffect], [(Variant.founder, 2), (.newcomer, 2), (.registered, 2), (.registered, 1), (.newcomer, 1)]
    )
    func everyCallFailsInTurn(timing: InMemoryRemoteStore.FailureTiming, scenario: (variant: Variant, format: Int)) async throws {
        let (variant, format) = scenario
        var struck = 0
        for primitive in InMemoryRemoteStore.Primitive.allCases {
            for number in 1... {
                let scenario = try await Scenario(variant, format: format)
                await scenario.memory.resetStatistics()
                await scenario.memory.failCall(number, of: primitive, timing: timing)
                let outcome: Result<SyncReport, any Error>
                do {
                    outcome = .success(try await scenario.target.sync())
                } catch {
                    outcome = .failure(error)
                }
                guard await scenario.memory.statistics.requests(of: primitive) >= number else {
                    // The sync made fewer calls of this primitive: the fault never struck.
                    #expect(throws: Never.self) { try outcome.get() }
                    break
                }
                struck += 1
                await scenario.memory.heal()
                try await expectRecovery(scenario, after: "\(primitive) #\(number) failing \(timing)", outcome: outcome)
            }
        }
        #expect(struck >= (variant == .registered ? 6 : 12))
    }

    private func expectRecovery(_ scenario: Scenario, after what: String, outcome: Result<SyncReport, any Error>) async throws {
        let comment = Comment(rawValue: what)
        if case .failure(let error) = outcome {
            #expect((error as? SyncError)?.isRetryable == true, comment)
        }
        try await scenario.target.sync()
        try await scenario.anna.sync()
        try await scenario.ben.sync()
        try await scenario.target.sync()
        let name = scenario.target.name.rawValue
        #expect(try scenario.anna.dump() == scenario.target.dump(), comment)
        #expect(try scenario.ben.dump() == scenario.target.dump(), comment)
        #expect(try scenario.anna.value("SELECT label FROM tag WHERE id = ?", ["t-\(name)"]) == "from \(name) (edited)".databaseValue, comment)
        #expect(try scenario.target.value("SELECT body FROM note WHERE id = 'n1'") == "draft".databaseValue, comment)
        #expect(try !scenario.target.localStore.hasPendingChanges(), comment)
        // Exactly one set carries the target's changes: a retried upload never published twice.
        #expect(try await scenario.remote.names(in: Paths.changeSets(of: name)).count == 1, comment)
        // An interrupted creation is completed, never duplicated.
        #expect(try await scenario.remote.integrityKeys().count == 1, comment)
        #expect(try await scenario.remote.names(in: Paths.app).contains("format.json"), comment)
        // Exactly one last-sync marker per client, even when replacing one failed half-way.
        let markers = try await scenario.remote.names(in: Paths.recentSyncs).compactMap(RecentSyncName.init(fileName:))
        #expect(markers.map(\.clientID.rawValue).sorted() == Array(Set(["anna", "ben", name])).sorted(), comment)
    }

    /// A sync's remote failure names the backend it came from, for the app's messages (and the
    /// CLI's hints), without anyone reading where the error was made.
    @Test func aFailedSyncNamesItsBackend() async throws {
        let scenario = try await Scenario(.registered, format: 2)
        await scenario.memory.failEveryCall()
        let failure = try await #require(throws: SyncError.self) { try await scenario.target.sync() }
        #expect(failure.code == .remote)
        #expect((failure.underlying as? RemoteStoreError)?.backend == "memory", "\(failure)")
    }
}
