import Foundation
import GRDB
import Testing
@testable import SyncCore

/// The capture of updates as one log entry per update naming its changed columns (`column_set`),
/// spelled out as one entry per column when stamped (see ``ChangeLog/stamp(in:)``).
@Suite("Change capture: one entry per update")
struct ColumnSetCaptureTests {
    /// The raw log, unstamped entries included: (`column_name`, `column_set`) of each entry, in order.
    private func log(_ database: TemporaryDatabase) throws -> [(column: String?, columnSet: Int64?)] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT column_name, column_set FROM rollingsync_changes ORDER BY seq").map { ($0["column_name"], $0["column_set"]) }
        }
    }

    /// The changed columns of the one pending change, and their values.
    private func pendingColumns(_ database: TemporaryDatabase) throws -> [String: DatabaseValue] {
        let changes = try database.pendingChanges()
        #expect(changes.count == 1 && changes.first?.kind == .update)
        return Dictionary(uniqueKeysWithValues: (changes.first?.columns ?? []).map { ($0.name, $0.value) })
    }

    @Test("an update of several columns appends one entry, spelled out one per changed column with the update's clock; a row written back whole records only what changed")
    func oneEntryPerUpdate() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity, price) VALUES ('a', 'apple', 1, 2.5)") }
        _ = try database.push()
        try database.pool.write { db in try db.execute(sql: "UPDATE items SET name = 'pear', quantity = 2 WHERE id = 'a'") }
        let logged = try log(database)
        #expect(logged.count == 1 && logged[0].column == nil && logged[0].columnSet == 0b11, "name (position 0) and quantity (1), in one entry")

        try database.pool.write { db in _ = try ChangeLog.stamp(in: db) }
        let stamped = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT column_name, column_set, clock FROM rollingsync_changes ORDER BY seq")
        }
        #expect(stamped.map { $0["column_name"] as String? } == ["name", "quantity"])
        #expect(stamped.allSatisfy { ($0["column_set"] as Int64?) == nil })
        #expect(Set(stamped.map { $0["clock"] as Int64 }).count == 1, "one update, one clock")
        #expect(try pendingColumns(database) == ["name": "pear".databaseValue, "quantity": 2.databaseValue])
        _ = try database.push()

        // As an ORM saves a record: every column set, one changed.
        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET id = 'a', name = 'pear', quantity = 3, price = 2.5, photo = NULL WHERE id = 'a'")
        }
        #expect(try log(database).map(\.columnSet) == [0b10])
        #expect(try pendingColumns(database) == ["quantity": 3.databaseValue])
    }

    @Test("in a table wider than one trigger's group, every update names exactly the columns it changed, in every group")
    func wideTable() throws {
        let count = 2 * CaptureTriggers.columnsPerTrigger + 5
        let names = (0..<count).map { "c\($0)" }
        let types = ["INTEGER", "TEXT", "REAL", "", "BLOB", "NUMERIC"]
        let database = try TemporaryDatabase(
            schema: "CREATE TABLE wide (id TEXT PRIMARY KEY NOT NULL, \(names.enumerated().map { "\($0.element) \(types[$0.offset % types.count])" }.joined(separator: ", ")))",
            tables: ["wide"]
        )
        let updateTriggers = try database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%AFTER UPDATE OF%' AND name NOT LIKE '%rekey'")
        }
        #expect(updateTriggers == 3)
        try database.pool.write { db in try db.execute(sql: "INSERT INTO wide (id) VALUES ('w')") }
        _ = try database.push()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            let changed = Set(names.filter { _ in Int.random(in: 0..<4, using: &generator) == 0 }).union([names.randomElement(using: &generator)!])
            let unchangedButSet = names.filter { !changed.contains($0) && Bool.random(using: &generator) }
            try database.pool.write { db in
                let assignments = changed.map { "\($0) = \(round + 1000)" } + unchangedButSet.map { "\($0) = \($0)" }
                try db.execute(sql: "UPDATE wide SET \(assignments.joined(separator: ", ")) WHERE id = 'w'")
            }
            let pending = try pendingColumns(database)
            #expect(Set(pending.keys) == changed, "round \(round)")
            #expect(pending.values.allSatisfy { $0 == (round + 1000).databaseValue || $0 == "\(round + 1000)".databaseValue })
            _ = try database.push()
        }
    }

    @Test("setting 1 to 1.0 is a change only in a column that can hold both, and a change of storage class is one everywhere it is stored")
    func storageClasses() throws {
        let database = try TemporaryDatabase(
            schema: "CREATE TABLE typed (id TEXT PRIMARY KEY NOT NULL, untyped, num NUMERIC, i INTEGER, r REAL, t TEXT, b BLOB)",
            tables: ["typed"]
        )
        try database.pool.write { db in try db.execute(sql: "INSERT INTO typed VALUES ('x', 1, 1, 1, 1, 1, 1)") }
        _ = try database.push()
        try database.pool.write { db in
            try db.execute(sql: "UPDATE typed SET untyped = 1.0, num = 1.0, i = 1.0, r = 1, t = 1.0, b = 1.0 WHERE id = 'x'")
        }
        // The INTEGER, NUMERIC and REAL columns store what they stored; TEXT stores '1.0' now.
        #expect(try pendingColumns(database) == ["untyped": 1.0.databaseValue, "t": "1.0".databaseValue, "b": 1.0.databaseValue])
        _ = try database.push()
        try database.pool.write { db in
            try db.execute(sql: "UPDATE typed SET untyped = '1.0', b = CAST('1.0' AS BLOB), i = 1, r = 1.0 WHERE id = 'x'")
        }
        #expect(try pendingColumns(database) == ["untyped": "1.0".databaseValue, "b": Data("1.0".utf8).databaseValue])
    }

    @Test("update entries logged before the table was rebuilt without a column name the columns they changed, not the ones now at their positions")
    func entriesOutliveAColumnDropped() throws {
        let database = try TemporaryDatabase(
            schema: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, a TEXT, b TEXT, c TEXT)", tables: ["notes"]
        )
        try database.pool.write { db in try db.execute(sql: "INSERT INTO notes VALUES ('n', 'a0', 'b0', 'c0')") }
        _ = try database.push()
        try database.pool.write { db in
            try db.execute(sql: "UPDATE notes SET b = 'b1', c = 'c1' WHERE id = 'n'")
            // SQLite's procedure for a change ALTER TABLE cannot make: the capture triggers go with the old table.
            try db.execute(sql: """
                CREATE TABLE notes_new (id TEXT PRIMARY KEY NOT NULL, b TEXT, c TEXT);
                INSERT INTO notes_new SELECT id, b, c FROM notes;
                DROP TABLE notes;
                ALTER TABLE notes_new RENAME TO notes;
                """)
        }
        #expect(try log(database).map(\.columnSet) == [0b110], "b and c, at positions 1 and 2 of (a, b, c)")
        let changes = try database.store.refreshSchema()
        #expect(changes == [.columnDropped(table: "notes", column: "a")])
        #expect(try pendingColumns(database) == ["b": "b1".databaseValue, "c": "c1".databaseValue])
        try database.pool.write { db in try db.execute(sql: "UPDATE notes SET c = 'c2' WHERE id = 'n'") }
        #expect(try pendingColumns(database) == ["b": "b1".databaseValue, "c": "c2".databaseValue])
    }

    @Test("a change of case in a NOCASE column, or of trailing spaces in an RTRIM one, is captured, though their collation holds the values equal")
    func caseChangesUnderNocase() throws {
        let database = try TemporaryDatabase(
            schema: "CREATE TABLE tags (name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, label TEXT COLLATE NOCASE, note COLLATE RTRIM)",
            tables: ["tags"]
        )
        try database.pool.write { db in try db.execute(sql: "INSERT INTO tags VALUES ('swift', 'apple', 'x')") }
        _ = try database.push()
        try database.pool.write { db in try db.execute(sql: "UPDATE tags SET label = 'APPLE', note = 'x  ' WHERE name = 'swift'") }
        #expect(try pendingColumns(database) == ["label": "APPLE".databaseValue, "note": "x  ".databaseValue])
    }

    @Test("a table keyed by a reference to a table registered later keeps naming the columns its updates changed")
    func referencedTableRegisteredLater() throws {
        let database = try TemporaryDatabase(
            schema: """
                CREATE TABLE user (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE profile (user_id INTEGER PRIMARY KEY REFERENCES user (id), a TEXT, b TEXT);
                """,
            tables: ["profile"]
        )
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO user VALUES (1, 'ann'); INSERT INTO profile VALUES (1, 'a0', 'b0')")
            // Rebuilt outside changeSchema, its columns reordered and one added: the schema check has not run yet.
            try db.execute(sql: """
                CREATE TABLE profile_new (user_id INTEGER PRIMARY KEY REFERENCES user (id), b TEXT, a TEXT, c TEXT);
                INSERT INTO profile_new (user_id, b, a) SELECT user_id, b, a FROM profile;
                DROP TABLE profile;
                ALTER TABLE profile_new RENAME TO profile;
                """)
        }
        try database.store.register(table: "user")
        _ = try database.push()
        try database.pool.write { db in try db.execute(sql: "UPDATE profile SET c = 'c1' WHERE user_id = 1") }
        #expect(try pendingColumns(database) == ["c": "c1".databaseValue])
    }
}
