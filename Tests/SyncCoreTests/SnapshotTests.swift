import Foundation
import GRDB
import Synchronization
import Testing
@testable import SyncCore

@Suite("Snapshots")
struct SnapshotTests {
    static let schema = """
        CREATE TABLE accounts (id TEXT PRIMARY KEY NOT NULL, balance INTEGER NOT NULL);
        CREATE TABLE ledger (id TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, amount INTEGER NOT NULL);
        """

    @Test("snapshots taken while another connection keeps writing open cleanly and hold exactly committed states")
    func snapshotDuringWrites() async throws {
        let database = try TemporaryDatabase(schema: Self.schema, tables: ["accounts", "ledger"])
        try await database.pool.write { db in
            for index in 0..<100 {
                try db.execute(sql: "INSERT INTO accounts (id, balance) VALUES (?, 100)", arguments: ["acct-\(index)"])
            }
        }
        let committed = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        // The application: a second connection moving money in transactions until told to stop.
        let writerConnection = try DatabaseQueue(path: database.url.path)
        let writer = Task.detached {
            var generator = SystemRandomNumberGenerator()
            while !stop.load(ordering: .relaxed) {
                try writerConnection.write { db in
                    let source = "acct-\(Int.random(in: 0..<100, using: &generator))"
                    let target = "acct-\(Int.random(in: 0..<100, using: &generator))"
                    let amount = Int.random(in: 1...20, using: &generator)
                    try db.execute(sql: "UPDATE accounts SET balance = balance - ? WHERE id = ?", arguments: [amount, source])
                    try db.execute(sql: "UPDATE accounts SET balance = balance + ? WHERE id = ?", arguments: [amount, target])
                    try db.execute(
                        sql: "INSERT INTO ledger (id, source, target, amount) VALUES (?, ?, ?, ?)",
                        arguments: [UUID().uuidString, source, target, amount]
                    )
                }
                committed.add(1, ordering: .relaxed)
            }
        }
        while committed.load(ordering: .relaxed) < 20 {
            await Task.yield()
        }
        var snapshots: [(url: URL, committedBefore: Int)] = []
        for index in 0..<4 {
            let url = database.file("snapshot-\(index).sqlite")
            let before = committed.load(ordering: .relaxed)
            try database.store.snapshot(to: url)
            snapshots.append((url, before))
        }
        stop.store(true, ordering: .relaxed)
        try await writer.value
        #expect(committed.load(ordering: .relaxed) > snapshots[0].committedBefore, "the application kept writing")

        for snapshot in snapshots {
            let copy = try DatabaseQueue(path: snapshot.url.path)
            try await copy.read { db in
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
                #expect(try Int.fetchOne(db, sql: "SELECT sum(balance) FROM accounts") == 10_000)
                let transfers = try Int.fetchOne(db, sql: "SELECT count(*) FROM ledger") ?? -1
                #expect(transfers >= snapshot.committedBefore)
                let logged = try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_changes") ?? -1
                // 100 account inserts, then per transfer two balance updates (each changes a value,
                // amounts are at least 1) and one ledger insert: every committed row has its log
                // row, and nothing half-committed is in the copy.
                #expect(logged == 100 + 3 * transfers)
            }
            let copyStore = try LocalStore(writer: copy)
            #expect(copyStore.databaseID == database.store.databaseID)
        }
        let existing = snapshots[0].url
        #expect(throws: (any Error).self) { try database.store.snapshot(to: existing) }
    }

    @Test("a downloaded snapshot adopted by another client keeps the data and applied sets, takes the new identity and has nothing pending")
    func adoptSnapshot() throws {
        let uploader = try TemporaryDatabase()
        let other = try TemporaryDatabase()
        try other.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('remote', 'r')") }
        try uploader.store.applyChangeSet(at: other.push(setID: "other-1"))
        try uploader.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('local', 'unpushed')") }
        let copy = uploader.file("whole-store.sqlite")
        try uploader.store.snapshot(to: copy)

        try LocalStore.adoptSnapshot(at: copy, databaseID: "downloader")
        let downloaded = try DatabasePool(path: copy.path)
        let store = try LocalStore(writer: downloaded)
        #expect(store.databaseID == "downloader")
        #expect(try store.hasPendingChanges() == false)
        #expect(try store.isApplied(setID: "other-1"))
        #expect(try store.currentClock() >= uploader.store.currentClock())
        let names = try downloaded.read { try String.fetchAll($0, sql: "SELECT id FROM items ORDER BY id") }
        #expect(names == ["local", "remote"])
        try downloaded.write { db in try db.execute(sql: "UPDATE items SET name = 'mine' WHERE id = 'remote'") }
        var pending: [RowChange] = []
        try store.readPendingChanges { pending.append($0) }
        #expect(pending.map(\.key) == ["remote".databaseValue])
        #expect(pending.first?.columns.map(\.name) == ["name"])
    }
}
