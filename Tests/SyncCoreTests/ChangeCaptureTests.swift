import Foundation
import GRDB
import Testing
import TestSupport
@testable import SyncCore

@Suite("Change capture")
struct ChangeCaptureTests {
    @Test("entries logged already stamped, with older clocks, after unstamped ones never hold the clock back")
    func stampedEntriesAmongUnstampedOnes() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            // The clock runs ahead of the wall clock (it observed a client whose clock does).
            try db.execute(sql: "UPDATE rollingsync_state SET clock = clock + (1 << 40)")
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('new', 'logged unstamped')")
            // Then a write published long ago, logged again with its clock (as a client removed
            // from its document does when it registers again).
            try db.execute(sql: """
                INSERT INTO rollingsync_changes (wall, clock, table_id, row_key, op)
                SELECT julianday(), 5, id, 'old', ? FROM rollingsync_tables WHERE name = 'items'
                """, arguments: [LocalStoreSchema.insertOperation])
            _ = try ChangeLog.stamp(in: db)
            let newest = try Int64.fetchOne(db, sql: "SELECT max(clock) FROM rollingsync_changes")
            let state = try Int64.fetchOne(db, sql: "SELECT clock FROM rollingsync_state")
            #expect(newest != nil && state == newest, "the clock is the newest one stamped, not the last entry's")
        }
    }

    @Test("an insert captures every SQLite value type, including NULL, large BLOB and unicode TEXT")
    func insertCapturesAllValueTypes() throws {
        let database = try TemporaryDatabase()
        let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try database.pool.write { db in
            try db.execute(
                sql: "INSERT INTO items (id, name, quantity, price, photo) VALUES (?, ?, ?, ?, ?)",
                arguments: ["a", "Grüße 👋 \\0 \u{1F1EB}\u{1F1F7}", Int64.max, -0.125, photo]
            )
            try db.execute(sql: "INSERT INTO items (id) VALUES ('b')")
        }
        let changes = try database.pendingChanges()
        #expect(changes.map(\.kind) == [.insert, .insert])
        let first = try #require(changes.first { $0.key == "a".databaseValue })
        #expect(first.columns.map(\.name) == ["name", "quantity", "price", "photo"])
        #expect(first.columns.map(\.value) == ["Grüße 👋 \\0 \u{1F1EB}\u{1F1F7}".databaseValue, Int64.max.databaseValue, (-0.125).databaseValue, photo.databaseValue])
        let second = try #require(changes.first { $0.key == "b".databaseValue })
        #expect(second.columns.allSatisfy { $0.value.isNull })
    }

    @Test("updates are captured per column, NULL transitions included; an update that changes nothing records nothing")
    func updatesArePerColumn() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('a', 'apple', 1)")
        }
        _ = try database.push()
        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET name = 'apple', quantity = 1 WHERE id = 'a'")
        }
        #expect(try database.pendingChanges().isEmpty)
        #expect(try database.store.hasPendingChanges() == false)

        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET name = NULL, price = 2.5 WHERE id = 'a'")
        }
        var changes = try database.pendingChanges()
        #expect(changes.count == 1)
        #expect(changes.first?.kind == .update)
        #expect(Set(changes.first?.columns.map(\.name) ?? []) == ["name", "price"])
        #expect(changes.first?.columns.first { $0.name == "name" }?.value == .null)
        _ = try database.push()

        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET name = 'back' WHERE id = 'a'")
            try db.execute(sql: "UPDATE items SET quantity = '1' WHERE id = 'a'")
        }
        changes = try database.pendingChanges()
        #expect(changes.first?.columns.map(\.name) == ["name"])
        #expect(changes.first?.columns.first?.value == "back".databaseValue)
    }

    @Test("edits of columns whose names hold commas, digits, quotes and any Unicode are pushed whole, each with its newest clock")
    func editsOfOddlyNamedColumns() throws {
        // A quote followed by a combining mark is one Character to Swift, but still a quote to SQLite.
        let names = ["1,2,3", ",", "a,10,b", "Grüße 👋 \u{1F1EB}\u{1F1F7}", "x\ny", "say \"hi\"", "it's", "q\"\u{301}x", "q'\u{301}y"]
        let database = try TemporaryDatabase(
            schema: "CREATE TABLE odd (id TEXT PRIMARY KEY NOT NULL, \(names.map { "\($0.sqlIdentifier) INTEGER" }.joined(separator: ", ")))",
            tables: ["odd"]
        )
        try database.pool.write { db in try db.execute(sql: "INSERT INTO odd (id) VALUES ('a')") }
        _ = try database.push()
        try database.pool.write { db in
            for (index, name) in names.enumerated() {
                try db.execute(sql: "UPDATE odd SET \(name.sqlIdentifier) = ? WHERE id = 'a'", arguments: [index])
            }
            try db.execute(sql: "UPDATE odd SET \(names[0].sqlIdentifier) = 100 WHERE id = 'a'")
        }
        let change = try #require(try database.pendingChanges().first)
        #expect(change.kind == .update)
        #expect(Set(change.columns.map(\.name)) == Set(names))
        #expect(change.columns.first { $0.name == names[0] }?.value == 100.databaseValue)
        let clocks = Dictionary(uniqueKeysWithValues: change.columns.map { ($0.name, $0.clock) })
        #expect(clocks[names[0]] == change.clock, "the column edited last carries the row's newest clock")
        #expect(names.dropFirst().allSatisfy { (clocks[$0] ?? change.clock) < change.clock })
    }

    @Test("the log's concatenated column edits read back exactly, and malformed text is refused")
    func concatenatedColumnEdits() throws {
        let parsed = try PendingRow.columnClocks(concatenated: "5,3,a,b12,1,,7,3,a,b-1,2,é👋")
        #expect(parsed == ["a,b": HLCTimestamp(rawValue: 7), ",": HLCTimestamp(rawValue: 12), "é👋": HLCTimestamp(rawValue: UInt64(bitPattern: -1))])
        #expect(try PendingRow.columnClocks(concatenated: "").isEmpty)
        for malformed in ["5,3,ab", "5,x,a", "5", "5,-1,a"] {
            #expect(throws: DatabaseError.self) { try PendingRow.columnClocks(concatenated: malformed) }
        }
    }

    @Test("a deleted row becomes one delete, whatever was logged before")
    func deleteFoldsEarlierChanges() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('a', 'x')")
            try db.execute(sql: "UPDATE items SET name = 'y' WHERE id = 'a'")
            try db.execute(sql: "DELETE FROM items WHERE id = 'a'")
        }
        let changes = try database.pendingChanges()
        #expect(changes.count == 1)
        #expect(changes.first?.kind == .delete)
        #expect(changes.first?.key == "a".databaseValue)
    }

    @Test("changes get strictly increasing hybrid logical clocks near the wall clock, and folded columns keep their own clock")
    func clocksAreMonotonic() throws {
        let database = try TemporaryDatabase()
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        try database.pool.write { db in
            for index in 0..<50 {
                try db.execute(sql: "INSERT INTO items (id, quantity) VALUES (?, ?)", arguments: ["k\(index)", index])
            }
            try db.execute(sql: "UPDATE items SET quantity = 100 WHERE id = 'k0'")
        }
        let changes = try database.pendingChanges()
        let clocks = changes.map(\.clock)
        #expect(clocks == clocks.sorted())
        #expect(Set(clocks).count == clocks.count)
        #expect(clocks.allSatisfy { $0.physicalMilliseconds >= before })
        let first = try #require(changes.first { $0.key == "k0".databaseValue })
        #expect(first.kind == .insert)
        let quantityClock = try #require(first.columns.first { $0.name == "quantity" }?.clock)
        let nameClock = try #require(first.columns.first { $0.name == "name" }?.clock)
        #expect(quantityClock > nameClock)
        #expect(changes.last?.key == "k0".databaseValue, "the row changed last sorts last")
    }

    @Test("writes through a second GRDB connection are captured")
    func secondConnectionIsCaptured() throws {
        let database = try TemporaryDatabase()
        let other = try DatabaseQueue(path: database.url.path)
        try other.write { db in
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('other', 'from another connection')")
        }
        let changes = try database.pendingChanges()
        #expect(changes.map(\.key) == ["other".databaseValue])
        #expect(changes.first?.columns.first { $0.name == "name" }?.value == "from another connection".databaseValue)
    }

    @Test("writes by the sqlite3 command-line tool are captured with a correct clock")
    func sqliteToolIsCaptured() async throws {
        let database = try TemporaryDatabase()
        try await database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('first', 'app')")
        }
        let appClock = try #require(try database.pendingChanges().first?.clock)
        let tool = try await TestProcess.run("/usr/bin/sqlite3", [
            database.url.path,
            "INSERT INTO items (id, name, quantity) VALUES ('cli', 'from sqlite3', 7); UPDATE items SET name = 'cli edit' WHERE id = 'first';",
        ])
        #expect(tool.status == 0, "sqlite3 failed: \(tool.standardError)")
        let changes = try database.pendingChanges()
        let cli = try #require(changes.first { $0.key == "cli".databaseValue })
        #expect(cli.kind == .insert)
        #expect(cli.columns.first { $0.name == "quantity" }?.value == 7.databaseValue)
        #expect(cli.clock > appClock)
        let edited = try #require(changes.first { $0.key == "first".databaseValue })
        #expect(edited.columns.first { $0.name == "name" }?.value == "cli edit".databaseValue)
        #expect(edited.columns.first { $0.name == "name" }.map(\.clock)! > cli.clock)
    }

    @Test("re-registering after ALTER TABLE ADD COLUMN captures the new column")
    func schemaChangeIsPickedUp() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('a', 'x')")
            try db.execute(sql: "ALTER TABLE items ADD COLUMN colour TEXT")
        }
        _ = try database.push()
        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET colour = 'red' WHERE id = 'a'")
        }
        #expect(try database.pendingChanges().isEmpty, "not captured before re-registration")
        let table = try database.store.register(table: "items")
        #expect(table.columns.contains("colour"))
        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET colour = 'blue' WHERE id = 'a'")
        }
        let changes = try database.pendingChanges()
        #expect(changes.first?.columns.map(\.name) == ["colour"])
        #expect(changes.first?.columns.first?.value == "blue".databaseValue)
    }

    @Test("changing a row's key is captured as a delete of the old key and an insert of the new one")
    func keyChange() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('old', 'x')")
        }
        _ = try database.push()
        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET id = 'new', name = 'y' WHERE id = 'old'")
        }
        let changes = try database.pendingChanges()
        #expect(changes.count == 2)
        #expect(changes.first { $0.key == "old".databaseValue }?.kind == .delete)
        let inserted = try #require(changes.first { $0.key == "new".databaseValue })
        #expect(inserted.kind == .insert)
        #expect(inserted.columns.first { $0.name == "name" }?.value == "y".databaseValue)
    }

    @Test("the log records the rowids of rows keyed otherwise, and a push whose rowids moved still reads each row by its key")
    func loggedRowidsAreCheckedHints() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (rowid, id, name) VALUES (1, 'a', 'first'), (2, 'b', 'second'), (3, 'c', 'third')")
            try db.execute(sql: "UPDATE items SET quantity = 7 WHERE id = 'c'")
        }
        let logged: [String] = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT row_key, op, row_id FROM rollingsync_changes ORDER BY seq").map { row in
                let (key, op, rowid): (String, Int, Int64) = (row[0], row[1], row[2])
                return "\(key) \(op == Int(RowChange.Kind.insert.rawValue) ? "insert" : "update") \(rowid)"
            }
        }
        #expect(logged == ["a insert 1", "b insert 2", "c insert 3", "c update 3"])
        // Rowids change under the log (UPDATE … SET rowid fires no capture trigger; VACUUM may
        // renumber): a's logged rowid now names b's row, b's names nothing, c's is gone.
        try database.pool.write { db in
            try db.execute(sql: "UPDATE items SET rowid = 20 WHERE id = 'b'")
            try db.execute(sql: "UPDATE items SET rowid = 2 WHERE id = 'a'")
            try db.execute(sql: "UPDATE items SET rowid = 1 WHERE id = 'b'")
            try db.execute(sql: "DELETE FROM items WHERE id = 'c'")
        }
        let changes = try database.pendingChanges()
        func name(_ key: String) -> DatabaseValue? {
            changes.first { $0.key == key.databaseValue }?.columns.first { $0.name == "name" }?.value
        }
        #expect(name("a") == "first".databaseValue && name("b") == "second".databaseValue)
        #expect(changes.first { $0.key == "c".databaseValue }?.kind == .delete)
        #expect(changes.count == 3)
    }

    @Test("a table keyed by its rowid or WITHOUT ROWID logs no rowid")
    func rowidsOnlyWhereTheKeyIsNotTheRowid() throws {
        let database = try TemporaryDatabase(
            schema: """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT);
                CREATE TABLE tags (name TEXT PRIMARY KEY, color TEXT) WITHOUT ROWID;
                CREATE TABLE links (a TEXT NOT NULL, b TEXT NOT NULL, weight REAL, PRIMARY KEY (a, b));
                """,
            tables: ["notes", "tags", "links"]
        )
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO notes (title) VALUES ('n'); INSERT INTO tags VALUES ('t', 'red'); INSERT INTO links VALUES ('x', 'y', 1.5)")
        }
        let logged = try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT t.name, c.row_id FROM rollingsync_changes AS c JOIN rollingsync_tables AS t ON t.id = c.table_id ORDER BY t.name")
                .map { "\($0[0] as String)=\(($0[1] as Int64?).map(String.init) ?? "NULL")" }
        }
        #expect(logged == ["links=1", "notes=NULL", "tags=NULL"])
        #expect(try database.pendingChanges().count == 3)
    }

    @Test("a large BLOB is pushed whole from a table whose generated column is named rowid")
    func largeBlobBesideAGeneratedRowidColumn() throws {
        let database = try TemporaryDatabase(
            schema: "CREATE TABLE media (id TEXT PRIMARY KEY NOT NULL, data BLOB, rowid INTEGER GENERATED ALWAYS AS (length(data)) VIRTUAL)",
            tables: ["media"]
        )
        let value = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try database.pool.write { db in try db.execute(sql: "INSERT INTO media (id, data) VALUES ('m', ?)", arguments: [value]) }
        let change = try #require(try database.pendingChanges().first)
        #expect(change.columns.first { $0.name == "data" }?.value == value.databaseValue, "read by the real rowid, not the column named rowid")
    }

    @Test("the capture triggers' stored text is exactly what registration generates, so a schema check leaves them in place")
    func storedTriggersMatchTheGeneratedOnes() throws {
        let database = try TemporaryDatabase()
        let version = { try database.pool.read { try Int.fetchOne($0, sql: "PRAGMA schema_version") } }
        let before = try version()
        // A schema change elsewhere makes the next check compare every synced table's triggers.
        try database.pool.write { db in try db.execute(sql: "CREATE TABLE unrelated (x)") }
        #expect(try database.store.refreshSchema() == [])
        #expect(try version() == before.map { $0 + 1 }, "no trigger was dropped and created again")
    }

    @Test("changes made after a set was written stay pending after markPushed")
    func markPushedKeepsLaterChanges() throws {
        let database = try TemporaryDatabase()
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id) VALUES ('a')")
        }
        let pushed = try #require(try database.store.writePendingChangeSet(to: database.file("s1"), setID: "s1"))
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO items (id) VALUES ('b')")
        }
        try database.store.markPushed(pushed)
        #expect(try database.pendingChanges().map(\.key) == ["b".databaseValue])
        #expect(try database.store.isApplied(setID: "s1"))
        #expect(try database.store.writePendingChangeSet(to: database.file("s2"), setID: "s2")?.summary.changeCount == 1)
    }
}
