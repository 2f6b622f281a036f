import Foundation
import GRDB
import Testing
@testable import SyncCore

@Suite("Synced table registration")
struct SyncedTableRegistrationTests {
    static let refusedTables: [(schema: String, table: String, reason: String)] = [
        ("CREATE TABLE t (rowid TEXT, _rowid_ TEXT, oid TEXT)", "t", "hide its rowid"),
        ("CREATE VIRTUAL TABLE t USING fts5(body)", "t", "virtual table"),
        ("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT); INSERT INTO t DEFAULT VALUES", "sqlite_sequence", "SQLite's own"),
        ("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL); CREATE VIEW v AS SELECT * FROM t", "v", "view"),
        ("CREATE TABLE rollingsync_mine (id TEXT PRIMARY KEY NOT NULL)", "rollingsync_mine", "reserved"),
    ]

    @Test("views, virtual tables, RollingSync's own names and hidden rowids are refused with a reason naming the table", arguments: refusedTables)
    func refused(schema: String, table: String, reason: String) throws {
        let database = try TemporaryDatabase(schema: schema, tables: [])
        let error = try #require(throws: LocalStoreError.self) { try database.store.register(table: table) }
        #expect(error.table == table)
        #expect(error.description.contains(reason), "\(error.description)")
        #expect(error.description.contains(table))
        let triggers = try database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") }
        #expect(triggers == 0)
    }

    @Test("integer keys of every kind and tables without a key are accepted, their rows named by global identities")
    func localKeysAccepted() throws {
        let database = try TemporaryDatabase(
            schema: """
                CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
                CREATE TABLE b (id BIGINT PRIMARY KEY NOT NULL, v TEXT);
                CREATE TABLE c (id INT PRIMARY KEY NOT NULL, v TEXT) WITHOUT ROWID;
                CREATE TABLE d (v TEXT, rowid TEXT);
                CREATE TABLE e (id TEXT PRIMARY KEY NOT NULL, a_id INTEGER REFERENCES a(id), v TEXT);
                CREATE TABLE f (id INTEGER PRIMARY KEY DESC, v TEXT);
                """,
            tables: []
        )
        for name in ["a", "b", "c", "d", "e", "f"] { try database.store.register(table: name) }
        // INTEGER PRIMARY KEY DESC is no rowid alias: SQLite stores a NULL id, which stays local.
        try database.pool.write { db in try db.execute(sql: "INSERT INTO f (v) VALUES ('no id')") }
        #expect(try database.pendingChanges().isEmpty)
        let tables = Dictionary(uniqueKeysWithValues: try database.store.syncedTables().map { ($0.name, $0) })
        #expect(tables.values.filter(\.keyIsLocal).map(\.name).sorted() == ["a", "b", "c", "d", "f"])
        #expect(tables["d"]?.keyColumns == ["_rowid_"], "the rowid, under a name no column takes")
        #expect(tables["e"]?.localReferences == ["a_id": try #require(tables["a"]).id])
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO a (v) VALUES ('x'); INSERT INTO b VALUES (7, 'y'); INSERT INTO c VALUES (-3, 'z'); INSERT INTO d VALUES ('w', 'not the rowid')")
            try db.execute(sql: "INSERT INTO e VALUES ('k', 1, 'refers to a')")
        }
        let changes = try database.pendingChanges()
        #expect(changes.count == 5)
        for change in changes where change.table != "e" {
            let key = try #require(change.key.storage.value as? String)
            #expect(key.range(of: #"^-?[0-9]+@[0-9a-f]{16}$"#, options: .regularExpression) != nil, "\(key)")
        }
        let reference = changes.first { $0.table == "e" }?.columns.first { $0.name == "a_id" }?.value
        #expect(reference == changes.first { $0.table == "a" }?.key, "a reference travels as the global identity")
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

    @Test("a declared type's affinity follows SQLite's rules in their order, folding ASCII letters only")
    func affinities() {
        let expected: [(String, SyncedTable.Affinity)] = [
            ("INTEGER", .integer), ("bigint", .integer), ("FLOATING POINT", .integer), ("CHARINT", .integer),
            ("VARCHAR(36)", .text), ("clob", .text), ("Text", .text), ("BLOB", .blob), ("", .blob),
            ("REAL", .real), ("double precision", .real), ("FLOAT", .real), ("NUMERIC", .numeric), ("DECIMAL(10,2)", .numeric),
            ("BOOLEAN", .numeric), ("DATETIME", .numeric), ("ANY", .numeric), ("STRING", .numeric),
            // SQLite folds ASCII only: the dotless ı is no I.
            ("REAL ınt", .real), ("ınteger", .numeric),
        ]
        for (type, affinity) in expected {
            #expect(SyncedTable.Affinity(declaredType: type) == affinity, "\(type)")
        }
    }
}
