import Foundation
import GRDB
import Testing
@testable import SyncCore

/// The last step of a point-in-time restore: rows the data rules removed while change sets were
/// replayed in clock order, that no change set deleted, are put back, and counted; a row that
/// still collides, or that a change set deleted, stays removed.
@Suite("Reinstating rows a replay's rules removed")
struct ReinstatementTests {
    static let schema = """
        CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, label TEXT UNIQUE);
        """

    /// A database where the replay of a set from "late" inserting `t-a` removed `t-b` (the row with
    /// the larger key loses a unique collision), and the watermark from before that replay.
    static func replayedCollision() throws -> (TemporaryDatabase, watermark: Int64) {
        let database = try TemporaryDatabase(schema: schema, tables: ["tag"])
        let first = ChangeSetApplyTests.insert("tag", "t-b", ["label": "urgent".databaseValue])
        try database.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet([first], clientID: "early", in: database))
        let watermark = try database.store.removedRowsWatermark()
        let second = ChangeSetApplyTests.insert("tag", "t-a", ["label": "urgent".databaseValue])
        try database.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet([second], clientID: "late", in: database))
        #expect(try database.store.removedRows().map(\.key) == ["t-b".databaseValue], "the collision removed t-b")
        return (database, watermark)
    }

    static func labels(_ database: TemporaryDatabase) throws -> [String: String] {
        try database.pool.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, label FROM tag").map { ($0["id"], $0["label"]) })
        }
    }

    @Test("a row removed by a collision that a later set resolves comes back, and is counted")
    func collisionResolvedLater() throws {
        let (database, watermark) = try Self.replayedCollision()
        let rename = RowChange(
            kind: .update, table: "tag", key: "t-a".databaseValue, clock: HLCTimestamp(rawValue: ChangeSetApplyTests.clock.rawValue + 1),
            columns: [.init(name: "label", value: "done".databaseValue, clock: HLCTimestamp(rawValue: ChangeSetApplyTests.clock.rawValue + 1))]
        )
        try database.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet([rename], clientID: "late", in: database))
        let pendingBefore = try database.pendingChanges().count
        #expect(try database.store.reinstateRowsRemovedByRules(after: watermark) == 1)
        #expect(try Self.labels(database) == ["t-a": "done", "t-b": "urgent"])
        #expect(try database.pendingChanges().count == pendingBefore, "putting a row back is not captured as a local edit")
    }

    @Test("a row that still collides stays removed")
    func stillColliding() throws {
        let (database, watermark) = try Self.replayedCollision()
        #expect(try database.store.reinstateRowsRemovedByRules(after: watermark) == 0)
        #expect(try Self.labels(database) == ["t-a": "urgent"])
    }

    @Test("a row a change set deleted stays removed")
    func deletedBySet() throws {
        let (database, watermark) = try Self.replayedCollision()
        let later = HLCTimestamp(rawValue: ChangeSetApplyTests.clock.rawValue + 1)
        let changes = [
            RowChange(kind: .delete, table: "tag", key: "t-b".databaseValue, clock: later),
            RowChange(kind: .update, table: "tag", key: "t-a".databaseValue, clock: later, columns: [.init(name: "label", value: "done".databaseValue, clock: later)]),
        ]
        try database.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet(changes, clientID: "early", in: database))
        #expect(try database.store.reinstateRowsRemovedByRules(after: watermark) == 0)
        #expect(try Self.labels(database) == ["t-a": "done"])
    }

    @Test("removals before the watermark are not the replay's and stay removed")
    func beforeWatermark() throws {
        let (database, _) = try Self.replayedCollision()
        let later = HLCTimestamp(rawValue: ChangeSetApplyTests.clock.rawValue + 1)
        let rename = RowChange(kind: .update, table: "tag", key: "t-a".databaseValue, clock: later, columns: [.init(name: "label", value: "done".databaseValue, clock: later)])
        try database.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet([rename], clientID: "late", in: database))
        #expect(try database.store.reinstateRowsRemovedByRules(after: database.store.removedRowsWatermark()) == 0)
        #expect(try Self.labels(database) == ["t-a": "done"])
    }
}
