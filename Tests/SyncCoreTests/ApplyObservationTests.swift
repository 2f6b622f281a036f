import Foundation
import GRDB
import Synchronization
import Testing

@testable import SyncCore

@Suite("Applied changes reach the application's observers")
struct ApplyObservationTests {
    @Test("a region observation of a synced table is told of each applied insert, update and deletion, once per set")
    func regionObservationSeesApplies() throws {
        let writer = try TemporaryDatabase()
        let reader = try TemporaryDatabase()
        let notified = Mutex(0)
        let cancellable = DatabaseRegionObservation(tracking: Table("items")).start(
            in: reader.pool, onError: { Issue.record($0) }, onChange: { _ in notified.withLock { $0 += 1 } }
        )
        defer { cancellable.cancel() }

        let writes = [
            "INSERT INTO items (id, name, quantity) VALUES ('a', 'apple', 1), ('b', 'bread', 2)",
            "UPDATE items SET quantity = 5 WHERE id = 'a'",
            "DELETE FROM items WHERE id = 'b'",
        ]
        for (index, write) in writes.enumerated() {
            try writer.pool.write { db in try db.execute(sql: write) }
            _ = try reader.store.applyChangeSet(at: try writer.push())
            // The observer runs when the apply commits, before the call returns.
            #expect(notified.withLock { $0 } == index + 1, "after \(write)")
        }
        #expect(try reader.items() == (try writer.items()))
    }
}

@Suite("The page cache of large applies")
struct ApplyPageCacheTests {
    @Test("a set of 10,000 changes is applied with a 32 MiB page cache, and the connection's own size is set back; a small set leaves it alone")
    func largeSetsGetALargerCache() throws {
        let schema = TemporaryDatabase.itemsSchema + """
            CREATE TABLE seen (cache_size INTEGER);
            CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
                INSERT INTO seen SELECT cache_size FROM pragma_cache_size;
            END;
            """
        let writer = try TemporaryDatabase(schema: schema)
        let reader = try TemporaryDatabase(schema: schema)
        try reader.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -1234") }
        func apply(rows: Range<Int>) throws -> Set<Int> {
            try writer.pool.write { db in
                for index in rows {
                    try db.execute(sql: "INSERT INTO items (id, quantity) VALUES (?, ?)", arguments: ["item \(index)", index])
                }
            }
            _ = try reader.store.applyChangeSet(at: try writer.push())
            return try reader.pool.write { db in
                defer { try? db.execute(sql: "DELETE FROM seen") }
                return Set(try Int.fetchAll(db, sql: "SELECT cache_size FROM seen"))
            }
        }

        #expect(try apply(rows: 0..<10) == [-1234])
        #expect(try apply(rows: 10..<10_010) == [-32_768])
        #expect(try reader.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } == -1234)
        #expect(try reader.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 10_010)
    }
}
