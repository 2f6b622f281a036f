import Foundation
import GRDB
import SyncCore
import TestSupport
import Testing

/// Keys as apps declare them (Docs/Conflicts.md, "Keys"): a key of any declared type but an
/// integer one syncs by value (`STRING` and `UUID` have numeric affinity: number-like text is
/// stored as a number), and a key not declared `NOT NULL` is accepted: rows whose key is NULL stay
/// local, reported by every sync, never published, never taken from a whole store.
@Suite("Keys of any declared type, and keys that may be NULL")
struct LooseKeyTests {
    static let schema = """
        CREATE TABLE item (uuid STRING PRIMARY KEY NOT NULL, title TEXT);
        CREATE TABLE tag (id UUID PRIMARY KEY, name TEXT);
        CREATE TABLE price (code NUMERIC PRIMARY KEY NOT NULL, amount REAL);
        CREATE TABLE page (id TEXT PRIMARY KEY, body TEXT);
        """
    static let tables = ["item", "tag", "price", "page"]

    /// Every row of the four tables, as sortable text (NULL keys included).
    static func dump(_ client: TestClient) throws -> [String] {
        try client.database.read { db in
            try zip(tables, ["uuid", "id", "code", "id"]).flatMap { table, key in
                try Row.fetchAll(db, sql: "SELECT typeof(\(key)) AS key_type, * FROM \(table) ORDER BY \(key)").map { "\(table) \($0)" }
            }
        }
    }

    static func clients(_ count: Int, on remote: TestRemote) throws -> [TestClient] {
        try (0..<count).map { try TestClient("client-\($0)", remote: remote.store, schema: schema, tables: tables) }
    }

    /// Syncs until quiet (a last round pushes nothing) and checks the clients hold the same rows.
    static func settle(_ clients: [TestClient], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<2 {
            for client in clients {
                let report = try await client.sync()
                #expect(report.warnings.allSatisfy { if case .rowsWithoutKey = $0 { true } else { false } }, "\(report.warnings)", sourceLocation: sourceLocation)
            }
        }
        for client in clients {
            #expect(try await client.sync().pushedChanges == 0, "a quiet system pushes nothing", sourceLocation: sourceLocation)
            #expect(try client.integrityCheck() == ["ok"], sourceLocation: sourceLocation)
        }
    }

    @Test("STRING, UUID, NUMERIC and nullable TEXT keys sync by value: inserts, updates, key changes, deletions")
    func looselyDeclaredKeysSync() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(2, on: remote)
        try clients[0].execute("""
            INSERT INTO item VALUES ('6f1c2d3e-0000-4000-8000-000000000001', 'first'), ('12e3', 'number-like');
            INSERT INTO tag VALUES ('3b8a9c10-0000-4000-8000-00000000000a', 'travel');
            INSERT INTO price VALUES ('0042', 1.5), ('A-7', 2.5);
            INSERT INTO page VALUES ('p1', 'hello');
            """)
        try await Self.settle(clients)
        try clients[1].execute("""
            UPDATE item SET title = 'edited' WHERE uuid = '6f1c2d3e-0000-4000-8000-000000000001';
            UPDATE price SET amount = 9 WHERE code = 42;
            UPDATE page SET id = 'p2' WHERE id = 'p1';
            DELETE FROM tag;
            """)
        try await Self.settle(clients)
        let dump = try Self.dump(clients[0])
        let other = try Self.dump(clients[1])
        #expect(other == dump, "\(dump)\n\(other)")
        #expect(dump.contains { $0.contains("edited") })
        #expect(dump.contains { $0.hasPrefix("price") && $0.contains("key_type:\"integer\"") && $0.contains("9.0") }, "'0042' is the number 42 everywhere")
        #expect(dump.contains { $0.hasPrefix("item") && $0.contains("key_type:\"integer\" uuid:12000") }, "'12e3' is the number 12000 everywhere")
        #expect(try clients[0].count("tag") == 0)
        #expect(try clients[0].value("SELECT id FROM page") == "p2".databaseValue)
    }

    @Test("rows whose key is NULL stay local: reported, never published, kept through a whole-store install, never in one")
    func nullKeysStayLocal() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(2, on: remote)
        try clients[0].execute("INSERT INTO page VALUES (NULL, 'draft'), (NULL, 'second draft'), ('p', 'published')")
        let report = try await clients[0].sync()
        #expect(report.warnings.contains(.rowsWithoutKey(table: "page", count: 2)))
        #expect(report.pushedChanges == 1, "only the row with a key")
        try await clients[1].sync()
        #expect(try clients[1].count("page") == 1)

        try clients[0].execute("UPDATE page SET body = 'draft, edited' WHERE body = 'draft'")
        #expect(try await clients[0].sync().pushedChanges == 0, "an edit of a row without a key is not published")

        try clients[0].execute("UPDATE page SET id = 'q' WHERE body = 'draft, edited'")
        try await Self.settle(clients)
        #expect(try clients[1].value("SELECT body FROM page WHERE id = 'q'") == "draft, edited".databaseValue, "a key given is a creation")

        try clients[0].execute("UPDATE page SET id = NULL WHERE id = 'p'")
        try await Self.settle(clients)
        #expect(try clients[1].value("SELECT count(*) FROM page WHERE id = 'p'") == 0.databaseValue, "a key taken away is a deletion")
        #expect(try clients[0].value("SELECT count(*) FROM page WHERE id IS NULL") == 2.databaseValue, "the row itself stays here")

        _ = try await clients[0].manager.uploadWholeStore()
        let scratch = try TemporaryDirectory()
        let newcomerFile = scratch.url.appendingPathComponent("newcomer.sqlite")
        try await clients[1].application.downloadWholeStore(of: TestClient.documentID, to: newcomerFile)
        let newcomer = try DatabaseQueue(path: newcomerFile.path)
        let (withoutKey, pages) = try await newcomer.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM page WHERE id IS NULL"), try Int.fetchOne(db, sql: "SELECT count(*) FROM page"))
        }
        #expect(withoutKey == 0, "a whole store holds no row without a key")
        #expect(pages == 1)
        try newcomer.close()

        try clients[1].execute("INSERT INTO page VALUES (NULL, 'ben''s draft')")
        let installed = try await clients[1].manager.downloadWholeStore()
        #expect(installed.wholeStoreInstalled != nil)
        #expect(try clients[1].value("SELECT body FROM page WHERE id IS NULL") == "ben's draft".databaseValue, "installing a whole store keeps local rows without a key")
        try await Self.settle(clients)
        #expect(try clients[0].count("page") == 3 && clients[1].count("page") == 2)
    }

    @Test("a table with rows whose key is NULL can be registered: only the other rows are published")
    func registeringWithNullKeys() async throws {
        let remote = try TestRemote(.memory)
        let client = try TestClient("solo", remote: remote.store, schema: Self.schema, tables: [])
        try client.execute("INSERT INTO page VALUES (NULL, 'draft'), ('a', 'one')")
        _ = try client.localStore.addSyncedTable("page")
        let report = try await client.sync()
        #expect(report.pushedChanges == 1)
        #expect(report.warnings == [.rowsWithoutKey(table: "page", count: 1)])
    }

    @Test("a whole store keeps the rows without a key when deleting them would make the app's triggers write synced data")
    func wholeStoreUploadIsNeverBlockedByRowsWithoutKey() async throws {
        let schema = Self.schema + """
            CREATE TABLE stats (id TEXT PRIMARY KEY NOT NULL, pages INTEGER NOT NULL);
            CREATE TRIGGER page_count_insert AFTER INSERT ON page BEGIN UPDATE stats SET pages = pages + 1; END;
            CREATE TRIGGER page_count_delete AFTER DELETE ON page BEGIN UPDATE stats SET pages = pages - 1; END;
            """
        let remote = try TestRemote(.memory)
        let client = try TestClient("solo", remote: remote.store, schema: schema, tables: Self.tables + ["stats"])
        try client.execute("INSERT INTO stats VALUES ('all', 0); INSERT INTO page VALUES (NULL, 'draft'), ('p', 'published')")
        try await client.sync()
        _ = try await client.manager.uploadWholeStore()  // throws `busy` if the store kept pending changes
        let scratch = try TemporaryDirectory()
        let newcomerFile = scratch.url.appendingPathComponent("newcomer.sqlite")
        try await client.application.downloadWholeStore(of: TestClient.documentID, to: newcomerFile)
        let newcomer = try DatabaseQueue(path: newcomerFile.path)
        let (pages, count) = try await newcomer.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM page"), try Int.fetchOne(db, sql: "SELECT pages FROM stats"))
        }
        #expect(pages == 2 && count == 2, "the store is the uploader's data as it is, its row without a key included")
        try newcomer.close()
    }

    @Test("the app's triggers keep writing rows without a key while other clients' changes are applied")
    func appTriggersWriteLocalRowsDuringApplies() async throws {
        let schema = Self.schema + """
            CREATE TRIGGER item_log AFTER INSERT ON item BEGIN INSERT INTO page VALUES (NULL, 'added ' || new.title); END;
            """
        let remote = try TestRemote(.memory)
        let clients = try (0..<2).map { try TestClient("client-\($0)", remote: remote.store, schema: schema, tables: Self.tables) }
        try clients[0].execute("INSERT INTO item VALUES ('i', 'lamp')")
        try await clients[0].sync()
        let applied = try await clients[1].sync()
        #expect(applied.appliedChanges == 1)
        #expect(!applied.warnings.contains { if case .apply(.appTriggerWritesSkipped, _) = $0 { true } else { false } }, "\(applied.warnings)")
        #expect(try clients[1].value("SELECT body FROM page WHERE id IS NULL") == "added lamp".databaseValue, "the local log row was written")
    }
}
