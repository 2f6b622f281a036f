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
