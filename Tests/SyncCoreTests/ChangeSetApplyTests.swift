import Foundation
import GRDB
import Testing
@testable import SyncCore

@Suite("Applying change sets")
struct ChangeSetApplyTests {
    static let schema = TemporaryDatabase.itemsSchema + """
        CREATE TABLE parents (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE children (
            id TEXT PRIMARY KEY NOT NULL,
            parent_id TEXT NOT NULL REFERENCES parents(id) ON DELETE CASCADE,
            label TEXT);
        """

    static func makeClient() throws -> TemporaryDatabase {
        try TemporaryDatabase(schema: schema, tables: ["items", "parents", "children"])
    }

    /// Writes a hand-made change set from `client` to a file of `database`'s directory.
    static func handMadeSet(_ changes: [RowChange], clientID: String = "hand", in database: TemporaryDatabase) throws -> URL {
        let url = database.file("hand-\(UUID().uuidString)")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: UUID().uuidString, databaseID: clientID))
        for change in changes {
            try writer.write(change)
        }
        try writer.finish()
        return url
    }

    static let clock = HLCTimestamp(physicalMilliseconds: 1_700_000_000_000)

    static func insert(_ table: String, _ key: String, _ values: [String: DatabaseValue]) -> RowChange {
        RowChange(kind: .insert, table: table, key: key.databaseValue, clock: clock, columns: values.sorted { $0.key < $1.key }.map {
            .init(name: $0.key, value: $0.value, clock: clock)
        })
    }

    /// Moves a client's clock one hour ahead by applying a set with a future clock (a deletion of a
    /// row that does not exist), so its next edit is certainly later than anything written so far,
    /// without waiting for the wall clock.
    static func advanceClock(of client: TemporaryDatabase) throws {
        let future = HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + 3_600_000)
        let set = try handMadeSet([RowChange(kind: .delete, table: "items", key: "no such row".databaseValue, clock: future)], in: client)
        try client.store.applyChangeSet(at: set)
        #expect(try client.store.currentClock() >= future)
    }

    @Test("another client's changes arrive intact and do not echo back as local changes")
    func applyWithoutEcho() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name, quantity, price, photo) VALUES ('x', 'Xylophone', 3, 9.5, x'00ff')")
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('y', 'Yak')")
        }
        let set = try a.push()
        let report = try b.store.applyChangeSet(at: set)
        #expect(report.insertedRows == 2)
        #expect(report.wasAlreadyApplied == false)
        #expect(try b.items() == a.items())
        #expect(try b.store.hasPendingChanges() == false)
        #expect(try b.store.currentClock() >= a.store.currentClock())

        try a.pool.write { db in
            try db.execute(sql: "UPDATE items SET quantity = 4 WHERE id = 'x'")
            try db.execute(sql: "DELETE FROM items WHERE id = 'y'")
        }
        let second = try b.store.applyChangeSet(at: a.push())
        #expect(second.updatedRows == 1)
        #expect(second.deletedRows == 1)
        #expect(try b.items() == a.items())
        #expect(try b.store.hasPendingChanges() == false)

        try b.pool.write { db in
            try db.execute(sql: "UPDATE items SET name = 'local' WHERE id = 'x'")
        }
        #expect(try b.pendingChanges().count == 1, "capture works again after the apply")
    }

    @Test("applying the same set twice is a no-op")
    func idempotent() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, quantity) VALUES ('x', 1)")
        }
        let set = try a.push(setID: "set-1")
        try b.store.applyChangeSet(at: set)
        try b.pool.write { db in
            try db.execute(sql: "UPDATE items SET quantity = 2 WHERE id = 'x'")
        }
        let again = try b.store.applyChangeSet(at: set)
        #expect(again.wasAlreadyApplied)
        #expect(again.insertedRows == 0)
        #expect(try b.items()["x"]?[1] == 2.databaseValue)
        #expect(try b.store.appliedSetIDs() == ["set-1"])
    }

    @Test("a failure part-way (an unknown column in the updates pass) leaves nothing applied and the set pending")
    func allOrNothing() throws {
        let b = try Self.makeClient()
        try b.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, quantity) VALUES ('existing', 1)")
        }
        _ = try b.push()
        let set = try Self.handMadeSet([
            Self.insert("items", "new1", ["name": "one".databaseValue]),
            Self.insert("items", "new2", ["name": "two".databaseValue]),
            RowChange(kind: .update, table: "items", key: "existing".databaseValue, clock: Self.clock, columns: [
                .init(name: "added_by_a_newer_app", value: (-5).databaseValue, clock: Self.clock),
            ]),
        ], in: b)
        let before = try b.items()
        let error = try #require(throws: LocalStoreError.self) { try b.store.applyChangeSet(at: set) }
        #expect(error.code == .unknownColumn && error.column == "added_by_a_newer_app")
        #expect(try b.items() == before)
        #expect(try b.store.appliedSetIDs().count == 1, "only b's own pushed set")
        #expect(try b.store.hasPendingChanges() == false)
        let applying = try b.pool.read { try Int.fetchOne($0, sql: "SELECT applying FROM rollingsync_state") }
        #expect(applying == 0)
        try b.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id) VALUES ('after')")
        }
        #expect(try b.pendingChanges().map(\.key) == ["after".databaseValue], "triggers are not left suppressed")
    }

    @Test("references: a child before its parent in the set applies; a child whose parent has not arrived is kept, not refused")
    func deferredForeignKeys() throws {
        let b = try Self.makeClient()
        let ordered = try Self.handMadeSet([
            Self.insert("children", "c1", ["parent_id": "p1".databaseValue, "label": "first".databaseValue]),
            Self.insert("parents", "p1", ["name": "parent".databaseValue]),
        ], in: b)
        let report = try b.store.applyChangeSet(at: ordered)
        #expect(report.insertedRows == 2)

        let dangling = try Self.handMadeSet([
            Self.insert("parents", "p2", ["name": "second parent".databaseValue]),
            Self.insert("children", "c2", ["parent_id": "missing".databaseValue, "label": "orphan".databaseValue]),
        ], in: b)
        // A parent that is missing but not known as deleted may still arrive (a set held back):
        // the reference is kept as it is, and nothing blocks.
        let applied = try b.store.applyChangeSet(at: dangling)
        #expect(applied.insertedRows == 2 && applied.warnings.isEmpty)
        let parents = try b.pool.read { try String.fetchAll($0, sql: "SELECT id FROM parents ORDER BY id") }
        #expect(parents == ["p1", "p2"])
        let reference = try b.pool.read { try String.fetchOne($0, sql: "SELECT parent_id FROM children WHERE id = 'c2'") }
        #expect(reference == "missing")
    }

    @Test("a corrupt or truncated set is refused before anything is applied")
    func corruptSetRefused() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in
            for index in 0..<200 {
                try db.execute(sql: "INSERT INTO items (id, name) VALUES (?, ?)", arguments: ["k\(index)", "row \(index)"])
            }
        }
        let set = try a.push()
        var bytes = try Data(contentsOf: set)
        bytes[bytes.count - 100] ^= 0x01
        try bytes.write(to: set)
        #expect(throws: ChangeSetFormatError.self) { try b.store.applyChangeSet(at: set) }
        try bytes.prefix(bytes.count - 10).write(to: set)
        #expect(throws: ChangeSetFormatError.self) { try b.store.applyChangeSet(at: set) }
        #expect(try b.items().isEmpty)
        #expect(try b.store.appliedSetIDs().isEmpty)
    }

    @Test("sets naming an unregistered table or an unknown column are refused whole")
    func unknownSchema() throws {
        let b = try Self.makeClient()
        let unknownTable = try Self.handMadeSet([
            Self.insert("items", "fine", [:]),
            Self.insert("elsewhere", "k", ["v": 1.databaseValue]),
        ], in: b)
        #expect(throws: LocalStoreError(.unregisteredTable, table: "elsewhere")) { try b.store.applyChangeSet(at: unknownTable) }
        let unknownColumn = try Self.handMadeSet([Self.insert("items", "k", ["colour": "red".databaseValue])], in: b)
        #expect(throws: LocalStoreError(.unknownColumn, table: "items", column: "colour")) { try b.store.applyChangeSet(at: unknownColumn) }
        #expect(try b.items().isEmpty)
    }

    @Test("an insert of an existing row merges like an update, an older creation losing to the row's own; an update of a missing row is ignored with a warning")
    func upsertRules() throws {
        let b = try Self.makeClient()
        try b.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('k', 'old', 1)")
        }
        _ = try b.push()
        // Another client created the same key earlier (Self.clock is in 2023): the row's own,
        // newer creation stays.
        let older = try b.store.applyChangeSet(at: try Self.handMadeSet([Self.insert("items", "k", ["name": "older".databaseValue])], in: b))
        #expect(older.updatedRows == 0 && older.staleValuesIgnored == 1)
        #expect(try b.items()["k"] == ["old".databaseValue, 1.databaseValue, .null, .null])

        let later = HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + 3_600_000)
        let set = try Self.handMadeSet([
            RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: later, columns: [
                .init(name: "name", value: "new".databaseValue, clock: later),
            ]),
            RowChange(kind: .update, table: "items", key: "missing".databaseValue, clock: Self.clock, columns: [
                .init(name: "name", value: "x".databaseValue, clock: Self.clock),
            ]),
        ], in: b)
        let report = try b.store.applyChangeSet(at: set)
        #expect(report.insertedRows == 0)
        #expect(report.updatedRows == 1)
        #expect(report.warnings == [.changeToDeletedRowIgnored(table: "items", key: "missing".databaseValue)])
        #expect(try b.items()["k"] == ["new".databaseValue, 1.databaseValue, .null, .null])
    }

    @Test("a cell older than its change is decided by its own clock, in either order of arrival")
    func cellOlderThanItsChange() throws {
        let base = HLCTimestamp(rawValue: Self.clock.rawValue - 5)
        let cell = Self.clock
        let change = HLCTimestamp(rawValue: Self.clock.rawValue + 10)
        func update(_ columns: [RowChange.Column], clock: HLCTimestamp) -> RowChange {
            RowChange(kind: .update, table: "items", key: "k".databaseValue, clock: clock, columns: columns)
        }
        var results: [[DatabaseValue]] = []
        for order in [[0, 1, 2], [0, 2, 1]] {
            let client = try Self.makeClient()
            let sets = [
                try Self.handMadeSet([RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: base, columns: [
                    .init(name: "name", value: "start".databaseValue, clock: base), .init(name: "quantity", value: 1.databaseValue, clock: base),
                ])], clientID: "base", in: client),
                // Two edits of name at the same clock: the larger client id, "zzz", wins.
                try Self.handMadeSet([update([.init(name: "name", value: "from zzz".databaseValue, clock: cell)], clock: cell)], clientID: "zzz", in: client),
                // aaa's change is newer (its quantity), but its name is the older edit.
                try Self.handMadeSet([update([
                    .init(name: "name", value: "from aaa".databaseValue, clock: cell), .init(name: "quantity", value: 2.databaseValue, clock: change),
                ], clock: change)], clientID: "aaa", in: client),
            ]
            for index in order {
                try client.store.applyChangeSet(at: sets[index])
            }
            results.append(try #require(try client.items()["k"]))
        }
        #expect(results[0] == results[1])
        #expect(results[0].prefix(2) == ["from zzz".databaseValue, 2.databaseValue])
    }

    @Test("a deletion older than a creation of its key loses in either order of arrival")
    func deletionOlderThanRecreation() throws {
        let base = Self.clock
        let deleted = HLCTimestamp(rawValue: base.rawValue + 10)
        let again = HLCTimestamp(rawValue: base.rawValue + 20)
        func creation(_ name: String, at clock: HLCTimestamp) -> RowChange {
            RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: clock, columns: [.init(name: "name", value: name.databaseValue, clock: clock)])
        }
        var results: [[DatabaseValue]?] = []
        // In clock order the re-creation comes back after the deletion; the other way round (as a
        // client sees it whose own re-creation was pushed before another's older deletion arrived)
        // the deletion used to remove the row on this client alone.
        for order in [[0, 1, 2], [0, 2, 1]] {
            let client = try Self.makeClient()
            let sets = [
                try Self.handMadeSet([creation("first", at: base)], clientID: "base", in: client),
                try Self.handMadeSet([RowChange(kind: .delete, table: "items", key: "k".databaseValue, clock: deleted)], clientID: "bbb", in: client),
                try Self.handMadeSet([creation("again", at: again)], clientID: "aaa", in: client),
            ]
            for index in order {
                try client.store.applyChangeSet(at: sets[index])
            }
            results.append(try client.items()["k"])
            #expect(try client.pendingChanges().isEmpty)
        }
        #expect(results[0] == results[1])
        #expect(results[0]?.first == "again".databaseValue)
    }

    @Test("a creation is weighed against a deletion by its creation clock, not by a cell edited before its push, in either order")
    func creationWithEditedCellMeetsDeletion() throws {
        // Created at w, a column edited at e before the push; a deletion at d in between: the
        // creation is older than the deletion (the edit loses to it like any update).
        let created = Self.clock
        let deleted = HLCTimestamp(rawValue: created.rawValue + 10)
        let edited = HLCTimestamp(rawValue: created.rawValue + 20)
        let creation = RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: edited, columns: [
            .init(name: "name", value: "created".databaseValue, clock: created), .init(name: "quantity", value: 2.databaseValue, clock: edited),
        ])
        for order in [[0, 1], [1, 0]] {
            let client = try Self.makeClient()
            let sets = [
                try Self.handMadeSet([creation], clientID: "aaa", in: client),
                try Self.handMadeSet([RowChange(kind: .delete, table: "items", key: "k".databaseValue, clock: deleted)], clientID: "bbb", in: client),
            ]
            for index in order {
                try client.store.applyChangeSet(at: sets[index])
            }
            #expect(try client.items()["k"] == nil, "order \(order)")
        }
    }

    @Test("an unpushed local deletion does not hide a newer deletion applied since: an older creation arriving late stays deleted")
    func localDeletionBelowNewerTombstone() throws {
        let client = try Self.makeClient()
        try client.store.applyChangeSet(at: Self.handMadeSet([Self.insert("items", "k", ["name": "first".databaseValue])], clientID: "base", in: client))
        try client.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 'k'") }
        _ = try client.pendingChanges()   // the local deletion, stamped now
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        let later = HLCTimestamp(physicalMilliseconds: now + 7_200_000)
        let between = HLCTimestamp(physicalMilliseconds: now + 3_600_000)
        try client.store.applyChangeSet(at: Self.handMadeSet([RowChange(kind: .delete, table: "items", key: "k".databaseValue, clock: later)], clientID: "bbb", in: client))
        let creation = RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: between, columns: [.init(name: "name", value: "again".databaseValue, clock: between)])
        let report = try client.store.applyChangeSet(at: Self.handMadeSet([creation], clientID: "aaa", in: client))
        #expect(try client.items()["k"] == nil)
        #expect(report.warnings == [.changeToDeletedRowIgnored(table: "items", key: "k".databaseValue)])
    }

    @Test("an unpushed local creation superseded by a newer one of the key stops counting: an older creation arriving later loses to the winner, and the key's tombstone goes")
    func supersededLocalCreation() throws {
        let client = try Self.makeClient()
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        func creation(_ name: String, minutesAhead: UInt64) -> RowChange {
            let clock = HLCTimestamp(physicalMilliseconds: now + minutesAhead * 60_000)
            return RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: clock, columns: [
                .init(name: "name", value: name.databaseValue, clock: clock), .init(name: "quantity", value: Int(minutesAhead).databaseValue, clock: clock),
            ])
        }
        // The key existed and was deleted (a tombstone), then this client created it again.
        try client.store.applyChangeSet(at: Self.handMadeSet([Self.insert("items", "k", ["name": "first".databaseValue])], clientID: "base", in: client))
        try client.store.applyChangeSet(at: Self.handMadeSet(
            [RowChange(kind: .delete, table: "items", key: "k".databaseValue, clock: HLCTimestamp(rawValue: Self.clock.rawValue + 10))], clientID: "base", in: client
        ))
        try client.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('k', 'local', 0)") }
        _ = try client.pendingChanges()   // stamped now
        try client.store.applyChangeSet(at: Self.handMadeSet([creation("newest", minutesAhead: 60)], clientID: "ccc", in: client))
        #expect(try client.pendingChanges().isEmpty, "the local creation lost whole: nothing of it is pushed")
        // A clock far ahead makes the next sets late, so they meet the recorded clocks.
        try Self.advanceClock(of: client)
        try client.store.applyChangeSet(at: Self.handMadeSet([creation("older", minutesAhead: 30)], clientID: "bbb", in: client))
        #expect(try client.items()["k"]?.prefix(2) == ["newest".databaseValue, 60.databaseValue])
        let edit = HLCTimestamp(physicalMilliseconds: now + 90 * 60_000)
        let report = try client.store.applyChangeSet(at: Self.handMadeSet(
            [RowChange(kind: .update, table: "items", key: "k".databaseValue, clock: edit, columns: [.init(name: "name", value: "edited".databaseValue, clock: edit)])],
            clientID: "ccc", in: client
        ))
        #expect(report.warnings.isEmpty, "the row was created again: its tombstone is gone")
        #expect(try client.items()["k"]?.first == "edited".databaseValue)
    }

    /// Moves `client`'s clock to `minutes` after now, by applying a deletion of a row that does not
    /// exist at that clock, so its next stamped change is later without waiting.
    static func advanceClock(of client: TemporaryDatabase, minutes: UInt64) throws {
        let clock = HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + minutes * 60_000)
        try client.store.applyChangeSet(at: handMadeSet([RowChange(kind: .delete, table: "items", key: "no such row".databaseValue, clock: clock)], in: client))
    }

    @Test("a row deleted, created again and edited before one push keeps its edit's clock on the creating client")
    func recreatedAndEditedBeforeThePush() throws {
        let (x, y, v) = (try Self.makeClient(), try Self.makeClient(), try Self.makeClient())
        try x.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('k', 'start', 0)") }
        let base = try x.push()
        for client in [y, v] { try client.store.applyChangeSet(at: base) }
        // x re-creates k now and edits its quantity an hour later; v edits the old row's quantity in between.
        try x.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 'k'; INSERT INTO items (id, name, quantity) VALUES ('k', 'again', 1)") }
        _ = try x.pendingChanges()
        try Self.advanceClock(of: v, minutes: 30)
        try v.pool.write { db in try db.execute(sql: "UPDATE items SET quantity = 30 WHERE id = 'k'") }
        try Self.advanceClock(of: x, minutes: 60)
        try x.pool.write { db in try db.execute(sql: "UPDATE items SET quantity = 60 WHERE id = 'k'") }
        let (fromX, fromV) = (try x.push(), try v.push())
        try y.store.applyChangeSet(at: fromX)
        try y.store.applyChangeSet(at: fromV)
        try x.store.applyChangeSet(at: fromV)
        #expect(try x.items()["k"] == y.items()["k"])
        #expect(try x.items()["k"]?.prefix(2) == ["again".databaseValue, 60.databaseValue])
    }

    @Test("a creation whose every column was edited before its push is weighed alike by its creator and its receivers")
    func creationWithEveryColumnEdited() throws {
        let (x, y) = (try Self.makeClient(), try Self.makeClient())
        try x.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity, price, photo) VALUES ('k', 'new', 1, 1.0, x'00')") }
        _ = try x.pendingChanges()
        try Self.advanceClock(of: x, minutes: 60)
        try x.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'edited', quantity = 2, price = 2.0, photo = x'01' WHERE id = 'k'") }
        let fromX = try x.push()
        // Another client deleted the key half an hour after the insert, before the edits.
        let deletion = try Self.handMadeSet([RowChange(
            kind: .delete, table: "items", key: "k".databaseValue,
            clock: HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + 30 * 60_000)
        )], clientID: "zzz", in: x)
        try y.store.applyChangeSet(at: fromX)
        try y.store.applyChangeSet(at: deletion)
        try x.store.applyChangeSet(at: deletion)
        #expect(try x.items()["k"] == y.items()["k"])
    }

    @Test("an unpushed local deletion yields to a newer creation of its key, and wins over an older one")
    func localDeletionMeetsCreation() throws {
        for newer in [true, false] {
            let client = try Self.makeClient()
            try client.store.applyChangeSet(at: Self.handMadeSet([Self.insert("items", "k", ["name": "first".databaseValue])], clientID: "base", in: client))
            try client.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 'k'") }
            _ = try client.pendingChanges()   // stamps the deletion with this client's clock
            let clock = newer
                ? HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + 3_600_000)
                : HLCTimestamp(rawValue: Self.clock.rawValue + 20)
            let creation = RowChange(
                kind: .insert, table: "items", key: "k".databaseValue, clock: clock, columns: [.init(name: "name", value: "again".databaseValue, clock: clock)]
            )
            try client.store.applyChangeSet(at: Self.handMadeSet([creation], clientID: "aaa", in: client))
            if newer {
                #expect(try client.items()["k"]?.first == "again".databaseValue)
                #expect(try client.pendingChanges().isEmpty, "the superseded deletion is not pushed")
            } else {
                #expect(try client.items()["k"] == nil)
                #expect(try client.pendingChanges().map(\.kind) == [.delete], "the newer deletion is still pushed")
            }
        }
    }

    @Test("same-cell conflicts are detected; last writer wins by default and clients converge")
    func conflictsLastWriterWins() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('k', 'start', 1)") }
        try b.store.applyChangeSet(at: a.push())

        try a.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'from A', quantity = 2 WHERE id = 'k'") }
        let setA = try a.push()
        try Self.advanceClock(of: b)
        try b.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'from B' WHERE id = 'k'") }

        let conflicts = try b.store.conflicts(inChangeSetAt: setA)
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.column == "name")
        #expect(conflict.localValue == "from B".databaseValue)
        #expect(conflict.remoteValue == "from A".databaseValue)
        #expect(conflict.remoteDatabaseID == a.store.databaseID)
        #expect(conflict.remoteWinsByLastWriter == false, "B's edit is later")
        #expect(try b.items()["k"]?[0] == "from B".databaseValue, "the preview changed nothing")

        let report = try b.store.applyChangeSet(at: setA)
        #expect(report.conflicts.map(\.resolution) == [.local])
        #expect(try b.items()["k"] == ["from B".databaseValue, 2.databaseValue, .null, .null])
        try a.store.applyChangeSet(at: b.push())
        #expect(try a.items() == b.items())
    }

    @Test("keeping the older local value re-publishes it with a newer clock, so every client converges on it")
    func localDecisionIsRepublished() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        let c = try Self.makeClient()
        try a.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('k', 'start')") }
        let initial = try a.push()
        try b.store.applyChangeSet(at: initial)
        try c.store.applyChangeSet(at: initial)

        try b.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'older from B' WHERE id = 'k'") }
        try Self.advanceClock(of: a)
        try a.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'newer from A' WHERE id = 'k'") }
        let setA = try a.push()
        let report = try b.store.applyChangeSet(at: setA, resolver: ConflictResolver { _ in .local })
        #expect(report.conflicts.first?.conflict.remoteWinsByLastWriter == true)
        let setB = try b.push()
        let pushedB = try #require(try ChangeSetReader(contentsOf: setB).next())
        #expect(pushedB.columns.first { $0.name == "name" }!.clock > (try #require(try ChangeSetReader(contentsOf: setA).next())).clock)

        try a.store.applyChangeSet(at: setB)
        try c.store.applyChangeSet(at: setB)
        let late = try c.store.applyChangeSet(at: setA)
        #expect(late.staleValuesIgnored == 1, "A's older value arrives late on C and loses to B's newer one")
        #expect(try a.items()["k"]?[0] == "older from B".databaseValue)
        #expect(try c.items() == a.items())
        #expect(try b.items() == a.items())
        #expect(try c.items()["k"]?[0] == "older from B".databaseValue, "A's set, applied last on C, is stale there")
    }

    @Test("a merged value is written and re-published")
    func mergedValue() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('k', 'start')") }
        try b.store.applyChangeSet(at: a.push())
        try a.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'A' WHERE id = 'k'") }
        try b.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'B' WHERE id = 'k'") }
        try b.store.applyChangeSet(at: a.push(), resolver: ConflictResolver { conflict in
            .merged("\(conflict.localValue.storage)+\(conflict.remoteValue.storage)".databaseValue)
        })
        let merged = try #require(try b.items()["k"]?[0])
        try a.store.applyChangeSet(at: b.push())
        #expect(try a.items()["k"]?[0] == merged)
    }

    @Test("delete versus update: the deletion wins on both sides and is reported")
    func deleteVersusUpdate() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('k', 'start')") }
        try b.store.applyChangeSet(at: a.push())
        // c creates the same key too, before a deletes it (a creation newer than the deletion
        // would win over it: see deletionOlderThanRecreation).
        let c = try Self.makeClient()
        try c.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('k', 'start')") }
        _ = try c.push()

        try a.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 'k'") }
        try b.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'edited' WHERE id = 'k'") }
        let setA = try a.push()
        let setB = try b.push(setID: "b-edit")
        let onA = try a.store.applyChangeSet(at: setB)
        #expect(onA.warnings == [.changeToDeletedRowIgnored(table: "items", key: "k".databaseValue)])
        #expect(try b.store.applyChangeSet(at: setA).deletedRows == 1)
        #expect(try a.items().isEmpty)
        #expect(try b.items().isEmpty)

        try c.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'unpushed' WHERE id = 'k'") }
        let report = try c.store.applyChangeSet(at: setA)
        #expect(report.warnings == [.remoteDeleteDiscardedLocalChanges(table: "items", key: "k".databaseValue)])
        #expect(try c.store.hasPendingChanges() == false)
        #expect(try c.store.applyChangeSet(at: setB).warnings == [.changeToDeletedRowIgnored(table: "items", key: "k".databaseValue)])
    }

    struct Refusal: Error {}

    @Test("a resolver that throws aborts the apply and leaves nothing applied")
    func throwingResolver() throws {
        let a = try Self.makeClient()
        let b = try Self.makeClient()
        try a.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('k', 'start')") }
        try b.store.applyChangeSet(at: a.push())
        try a.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('other', 'new')")
            try db.execute(sql: "UPDATE items SET name = 'A' WHERE id = 'k'")
        }
        try b.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'B' WHERE id = 'k'") }
        let set = try a.push(setID: "refused")
        let before = try b.items()
        #expect(throws: Refusal.self) { try b.store.applyChangeSet(at: set, resolver: ConflictResolver { _ in throw Refusal() }) }
        #expect(try b.items() == before)
        #expect(try b.store.isApplied(setID: "refused") == false)
        #expect(try b.pendingChanges().count == 1, "the local edit is still pending")
    }

    /// The records of applied clocks on a client whose sets are never late (one writer, always
    /// ahead): folded once they are mostly repeats, so they follow the rows changed, not the edits;
    /// the folded clocks still decide a late set.
    @Test("applied clocks stay in proportion to the rows changed when the same rows are edited set after set")
    func appliedClocksOfRepeatedEditsStayBounded() throws {
        let client = try Self.makeClient()
        let rows = 17_000
        let keys = (0..<rows).map { String(format: "row-%05d", $0) }
        let start = UInt64(Date().timeIntervalSince1970 * 1000)
        func clock(_ set: Int) -> HLCTimestamp { HLCTimestamp(physicalMilliseconds: start + UInt64(set) * 1000) }
        func records() throws -> (applied: Int, cells: Int) {
            try client.pool.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_applied_clocks") ?? -1,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_cell_clocks") ?? -1)
            }
        }
        try client.store.applyChangeSet(at: Self.handMadeSet(keys.map {
            RowChange(kind: .insert, table: "items", key: $0.databaseValue, clock: clock(0), columns: [.init(name: "name", value: "v0".databaseValue, clock: clock(0))])
        }, clientID: "writer", in: client))
        var counts: [Int] = [try records().applied]
        for set in 1...4 {
            // The last set leaves row 42 alone: its newest clock is then only in the folded ones.
            try client.store.applyChangeSet(at: Self.handMadeSet(keys.filter { set < 4 || $0 != "row-00042" }.map {
                RowChange(kind: .update, table: "items", key: $0.databaseValue, clock: clock(set), columns: [.init(name: "name", value: "v\(set)".databaseValue, clock: clock(set))])
            }, clientID: "writer", in: client))
            counts.append(try records().applied)
        }
        // 17,000 records per set; the third update takes them past 65,536 with 68,000 records for
        // 17,000 rows, which folds them; the fourth appends its own.
        #expect(counts == [rows, 2 * rows, 3 * rows, 0, rows - 1])
        #expect(try records().cells == 2 * rows, "each row's creation clock and its name's")

        // A late edit older than the folded clock loses; a newer one wins.
        try client.store.applyChangeSet(at: Self.handMadeSet([
            RowChange(kind: .update, table: "items", key: "row-00042".databaseValue, clock: clock(2), columns: [.init(name: "name", value: "stale".databaseValue, clock: clock(2))]),
            RowChange(kind: .update, table: "items", key: "row-00043".databaseValue, clock: clock(9), columns: [.init(name: "name", value: "newer".databaseValue, clock: clock(9))]),
        ], clientID: "late", in: client))
        #expect(try client.pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM items WHERE id IN ('row-00042', 'row-00043') ORDER BY id") } == ["v3", "newer"])
        #expect(try client.store.hasPendingChanges() == false)
    }

    /// Records that pass the check's threshold without being mostly repeats stay as they are: a
    /// fold would turn each row's one record into a record per cell.
    @Test("applied clocks of mostly distinct rows are not folded when they pass the check's threshold")
    func appliedClocksOfDistinctRowsStay() throws {
        let client = try Self.makeClient()
        let keys = (0..<40_000).map { String(format: "row-%05d", $0) }
        let clock = HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000))
        try client.store.applyChangeSet(at: Self.handMadeSet(keys.map {
            RowChange(kind: .insert, table: "items", key: $0.databaseValue, clock: clock, columns: [.init(name: "name", value: "v0".databaseValue, clock: clock)])
        }, clientID: "writer", in: client))
        // 30,000 updates take the records past 65,536: 70,000 records for 40,000 rows.
        let later = HLCTimestamp(physicalMilliseconds: clock.physicalMilliseconds + 1000)
        try client.store.applyChangeSet(at: Self.handMadeSet(keys.prefix(30_000).map {
            RowChange(kind: .update, table: "items", key: $0.databaseValue, clock: later, columns: [.init(name: "name", value: "v1".databaseValue, clock: later)])
        }, clientID: "writer", in: client))
        let counts = try client.pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_applied_clocks"), try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_cell_clocks"))
        }
        #expect(counts.0 == 70_000)
        #expect(counts.1 == 0)
    }
}
