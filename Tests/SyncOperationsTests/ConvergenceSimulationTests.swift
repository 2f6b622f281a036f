import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import TestSupport
import Testing

/// Seeded random operations on several clients — inserts, conflicting updates, deletes, syncs in
/// random order, some of them failing at a random remote call before or after its effect — then
/// rounds of syncs until nothing moves: every database must be identical.
///
/// The normal suite runs a few seeds; `ROLLSYNC_SIMULATION_SEEDS=<n>` runs seeds 1…n with longer
/// histories instead, and `ROLLSYNC_SIMULATION_SEED=<n>` together with it replays seed n alone.
@Suite("Convergence simulation")
struct ConvergenceSimulationTests {
    static let schema = """
        CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, title TEXT, amount INTEGER, owner TEXT);
        CREATE TABLE label (id TEXT PRIMARY KEY NOT NULL, item_id TEXT, name TEXT);
        """
    static let tables = ["item", "label"]

    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        if let text = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"], let count = UInt64(text), count > 0 {
            return Array(1...count)
        }
        return [1, 2, 3, 4]
    }

    static var steps: Int {
        ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"] == nil ? 150 : 600
    }

    @Test("all clients end identical", arguments: seeds)
    func clientsConverge(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let remote = try TestRemote(.memory)
        let memory = try remote.faults
        let clientCount = 3 + Int(random.next() % 3)
        let clients = try (0..<clientCount).map { index in
            try TestClient("client-\(index)", remote: remote.store, schema: Self.schema, tables: Self.tables)
        }
        var created = 0
        var syncs = 0
        var conflicts = 0
        var failedSyncs = 0
        for _ in 0..<Self.steps {
            let client = clients[Int(random.next() % UInt64(clientCount))]
            switch random.next() % 10 {
            case 0, 1, 2:
                created += 1
                try client.execute(
                    "INSERT INTO item VALUES (?, ?, ?, ?)",
                    ["i\(created)", "title \(created)", Int(random.next() % 100), client.name.rawValue]
                )
                if random.next() % 2 == 0 {
                    try client.execute("INSERT INTO label VALUES (?, ?, ?)", ["l\(created)", "i\(created)", "label \(created)"])
                }
            case 3, 4, 5:
                // Updates aim at a few early items, so clients often edit the same cells concurrently.
                let target = "i\(1 + Int(random.next() % UInt64(max(1, min(created, 6)))))"
                if random.next() % 2 == 0 {
                    try client.execute("UPDATE item SET title = ? WHERE id = ?", ["\(client.name) \(random.next() % 1000)", target])
                } else {
                    try client.execute("UPDATE item SET amount = amount + 1, owner = ? WHERE id = ?", [client.name.rawValue, target])
                }
            case 6:
                let target = "i\(1 + Int(random.next() % UInt64(max(1, created))))"
                try client.execute("DELETE FROM item WHERE id = ?", [target])
                try client.execute("DELETE FROM label WHERE item_id = ?", [target])
            case 7:
                // A sync that fails at some remote call; a later sync must make up for it.
                let primitive = InMemoryRemoteStore.Primitive.allCases[Int(random.next() % 7)]
                let timing: InMemoryRemoteStore.FailureTiming = random.next() % 2 == 0 ? .beforeEffect : .afterEffect
                await memory.failCall(1 + Int(random.next() % 3), of: primitive, timing: timing)
                _ = try? await client.sync()
                await memory.heal()
                failedSyncs += 1
            default:
                conflicts += try await client.sync().conflicts.count
                syncs += 1
            }
        }
        var rounds = 0
        var moved = true
        while moved && rounds < 6 {
            moved = false
            rounds += 1
            for client in clients {
                let report = try await client.sync()
                moved = moved || report.appliedSets > 0 || report.pushedChanges > 0
            }
        }
        #expect(!moved, "still changing after \(rounds) rounds (seed \(seed))")
        let reference = try clients[0].dump(tables: Self.tables)
        for client in clients.dropFirst() {
            let dump = try client.dump(tables: Self.tables)
            let differences = Set(dump).symmetricDifference(reference).sorted().prefix(6)
            #expect(dump == reference, "seed \(seed): \(client.name) differs from client-0: \(differences)")
        }
        #expect(syncs > 0 && failedSyncs > 0)
        #expect(conflicts > 0, "seed \(seed) produced no conflicting edits; the simulation should")
        #expect(try clients.allSatisfy { try !$0.localStore.hasPendingChanges() })
    }
}
