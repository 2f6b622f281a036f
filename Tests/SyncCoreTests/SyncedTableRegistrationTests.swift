import Foundation
import GRDB
import Testing
@testable import SyncCore

@Suite("Synced table registration")
struct SyncedTableRegistrationTests {
    static let refusedTables: [(schema: String, table: String, reason: String)] = [
        ("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)", "t", "rowid"),
        ("CREATE TABLE t (v TEXT)", "t", "no primary key"),
        ("CREATE TABLE t (id BIGINT PRIMARY KEY NOT NULL, v TEXT)", "t", "integer affinity"),
        ("CREATE TABLE t (id INT PRIMARY KEY NOT NULL, v TEXT) WITHOUT ROWID", "t", "integer affinity"),
        ("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL); CREATE VIEW v AS SELECT * FROM t", "v", "view"),
        ("CREATE TABLE rollingsync_mine (id TEXT PRIMARY KEY NOT NULL)", "rollingsync_mine", "reserved"),
    ]

    @Test("tables without one key of app-assigned values are refused with a reason naming the table", arguments: refusedTables)
    func refused(schema: String, table: String, reason: String) throws {
        let database = try TemporaryDatabase(schema: schema, tables: [])
        let error = try #require(throws: LocalStoreError.self) { try database.store.register(table: table) }
        #expect(error.table == table)
        #expect(error.description.contains(reason), "\(error.description)")
        #expect(error.description.contains(table))
        let triggers = try database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") }
        #expect(triggers == 0)
    }

    @Test("a missing table is refused")
    func missingTable() throws {
        let database = try TemporaryDatabase(tables: [])
        let error = try #require(throws: LocalStoreError.self) { try database.store.register(table: "nope") }
        #expect(error.code == .noSuchTable)
    }

    @Test("TEXT and BLOB keys are accepted, in rowid and WITHOUT ROWID tables; generated columns are skipped")
    func accepted() throws {
        let database = try TemporaryDatabase(
            schema: #"""
                CREATE TABLE a (id TEXT PRIMARY KEY NOT NULL, v TEXT, doubled INTEGER GENERATED ALWAYS AS (length(v) * 2));
                CREATE TABLE b (id BLOB NOT NULL PRIMARY KEY, v TEXT) WITHOUT ROWID;
                CREATE TABLE "odd ""name""" ("key col" VARCHAR(36) PRIMARY KEY NOT NULL, "it's" TEXT);
                """#,
            tables: []
        )
        let a = try database.store.register(table: "a")
        #expect(a.keyColumns == ["id"])
        #expect(a.columns == ["v"])
        try database.store.register(table: "b")
        let odd = try database.store.register(table: "odd \"name\"")
        #expect(odd.columns == ["it's"])
        #expect(try database.store.syncedTables().map(\.name) == ["a", "b", "odd \"name\""])
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO b (id, v) VALUES (x'0102', 'blob key')")
            try db.execute(sql: #"INSERT INTO "odd ""name""" VALUES ('k', 'quoted')"#)
            try db.execute(sql: #"UPDATE "odd ""name""" SET "it's" = 'changed'"#)
        }
        let changes = try database.pendingChanges()
        #expect(changes.map(\.table).sorted() == ["b", "odd \"name\""])
        #expect(changes.first { $0.table == "b" }?.key == Data([1, 2]).databaseValue)
        try database.store.unregister(table: "b")
        #expect(try database.pendingChanges().map(\.table) == ["odd \"name\""])
    }

    @Test("keys of any declared type but an integer one are accepted, and keys not declared NOT NULL")
    func looselyDeclaredKeys() throws {
        let database = try TemporaryDatabase(
            schema: """
                CREATE TABLE s (uuid STRING PRIMARY KEY NOT NULL, v TEXT);
                CREATE TABLE u (id UUID PRIMARY KEY, v TEXT);
                CREATE TABLE n (id NUMERIC PRIMARY KEY NOT NULL, v TEXT) WITHOUT ROWID;
                CREATE TABLE r (id REAL PRIMARY KEY NOT NULL, v TEXT);
                CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT);
                CREATE TABLE w (id TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
                """,
            tables: []
        )
        for name in ["s", "u", "n", "r", "t", "w"] { try database.store.register(table: name) }
        let nullable = try database.store.syncedTables().filter(\.keyMayBeNull).map(\.name)
        #expect(nullable == ["t", "u"], "a WITHOUT ROWID table's key is NOT NULL whatever its declaration")
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (NULL, 'no key'), ('k', 'key'); INSERT INTO u VALUES (NULL, 'x')")
            try db.execute(sql: "UPDATE t SET v = 'still no key' WHERE id IS NULL; DELETE FROM u")
        }
        #expect(try database.pendingChanges().map(\.key) == ["k".databaseValue], "rows whose key is NULL are not captured")
    }
}
