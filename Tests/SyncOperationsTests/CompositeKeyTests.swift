import Foundation
import GRDB
import SyncCore
import TestSupport
import Testing

/// Composite primary keys (Docs/Conflicts.md, "Keys"): join tables keyed by `PRIMARY KEY (a, b)`,
/// in rowid and `WITHOUT ROWID` tables, with key columns of every storage class, composite
/// foreign keys that reference them, key changes (a deletion of the old key and a creation of the
/// new one), conflicts on one cell of a row, whole stores and re-bases with unpushed changes,
/// and the history filtered by a composite key.
@Suite("Composite primary keys")
struct CompositeKeyTests {
    static let schema = """
        CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT);
        CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE note_tag (
            note_id TEXT NOT NULL REFERENCES note(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
            position INTEGER,
            PRIMARY KEY (note_id, tag_id)) WITHOUT ROWID;
        CREATE TABLE tag_comment (
            id TEXT PRIMARY KEY NOT NULL,
            note_id TEXT, tag_id TEXT, text TEXT,
            FOREIGN KEY (tag_id, note_id) REFERENCES note_tag (tag_id, note_id) ON DELETE CASCADE);
        CREATE TABLE cell (sheet BLOB NOT NULL, row INTEGER NOT NULL, col REAL NOT NULL, label TEXT, value, PRIMARY KEY (sheet, row, col));
        CREATE TABLE loose_pair (a TEXT, b TEXT, v TEXT, PRIMARY KEY (a, b));
        """
    static let tables = ["note", "tag", "note_tag", "tag_comment", "cell", "loose_pair"]

    static func clients(_ count: Int, on remote: TestRemote) throws -> [TestClient] {
        try (0..<count).map { try TestClient("client-\($0)", remote: remote.store, schema: schema, tables: tables) }
    }

    /// Every row of every table, with each value's storage class, in key order.
    static func dump(_ client: TestClient) throws -> [String] {
        try client.database.read { db in
            try tables.flatMap { table in
                // Rows with a NULL in their key stay on their client.
                try Row.fetchAll(db, sql: "SELECT * FROM \(table)\(table == "loose_pair" ? " WHERE b IS NOT NULL" : "")").map { $0 }.sorted { $0.description < $1.description }.map { row in
                    "\(table) " + row.map { "\($0):\($1.storage)" }.joined(separator: " ")
                }
            }
        }
    }

    /// Syncs until quiet, then checks the clients are identical, clean and push nothing more.
    static func settle(_ clients: [TestClient], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<2 {
            for client in clients { try await client.sync() }
        }
        let reference = try dump(clients[0])
        for client in clients {
            #expect(try await client.sync().pushedChanges == 0, "a quiet system pushes nothing", sourceLocation: sourceLocation)
            #expect(try client.integrityCheck() == ["ok"], sourceLocation: sourceLocation)
            #expect(try client.value("SELECT count(*) FROM pragma_foreign_key_check") == 0.databaseValue, sourceLocation: sourceLocation)
            #expect(try dump(client) == reference, "\(client.name) differs", sourceLocation: sourceLocation)
        }
    }

    @Test("rows of composite keys sync: inserts, updates, key changes and deletions, in rowid and WITHOUT ROWID tables")
    func compositeKeysSync() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(2, on: remote)
        try clients[0].execute("""
            INSERT INTO note VALUES ('n1', 'first'), ('n,2', 'a comma in the key');
            INSERT INTO tag VALUES ('t1', 'home'), ('it''s', 'a quote in the key');
            INSERT INTO note_tag VALUES ('n1', 't1', 1), ('n1', 'it''s', 2), ('n,2', 't1', 3);
            INSERT INTO cell VALUES (x'00ff', 1, 0.1, 'a', 'x'), (x'00ff', 1, 2.5, 'b', NULL), (x'', -7, 1e300, 'c', 3);
            INSERT INTO loose_pair VALUES ('a', 'b', 'synced'), ('a', NULL, 'local only');
            """)
        try await Self.settle(clients)
        #expect(try clients[1].count("note_tag") == 3 && clients[1].count("cell") == 3)
        #expect(try clients[1].value("SELECT count(*) FROM loose_pair") == 1.databaseValue, "a row with a NULL in its key stays local")

        try clients[1].execute("""
            UPDATE note_tag SET position = 9 WHERE note_id = 'n1' AND tag_id = 't1';
            DELETE FROM note_tag WHERE note_id = 'n1' AND tag_id = 'it''s';
            UPDATE note_tag SET note_id = 'n1', tag_id = 'it''s' WHERE note_id = 'n,2';
            UPDATE cell SET value = x'0102' WHERE sheet = x'00ff' AND row = 1 AND col = 0.1;
            UPDATE cell SET col = 3.5 WHERE col = 2.5;
            DELETE FROM cell WHERE sheet = x'';
            """)
        #expect(try clients[1].count("note_tag") == 2)
        try await Self.settle(clients)
        let links = try await clients[0].database.read { db in
            try String.fetchAll(db, sql: "SELECT note_id || ' ' || tag_id || ' ' || position FROM note_tag ORDER BY 1")
        }
        #expect(links == ["n1 it's 3", "n1 t1 9"], "\(links)")
        #expect(try clients[0].value("SELECT value FROM cell WHERE col = 0.1") == Data([1, 2]).databaseValue)
        #expect(try clients[0].value("SELECT label FROM cell WHERE col = 3.5") == "b".databaseValue)
        #expect(try clients[0].count("cell") == 2)
    }

    @Test("concurrent edits of one composite-keyed row merge cell by cell; a deletion wins over a concurrent edit")
    func conflictsOnCompositeKeys() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(3, on: remote)
        try clients[0].execute("""
            INSERT INTO note VALUES ('n', 'note'); INSERT INTO tag VALUES ('t', 'tag'), ('u', 'other');
            INSERT INTO note_tag VALUES ('n', 't', 1), ('n', 'u', 1);
            """)
        try await Self.settle(clients)
        try clients[0].execute("UPDATE note_tag SET position = 10 WHERE tag_id = 't'")
        try clients[1].execute("UPDATE note_tag SET position = 20 WHERE tag_id = 't'")
        try clients[1].execute("UPDATE note_tag SET position = 5 WHERE tag_id = 'u'")
        try clients[2].execute("DELETE FROM note_tag WHERE tag_id = 'u'")
        try await Self.settle(clients)
        // One of the two edits wins on every client alike (settle compares them); which one is the
        // last writer's by (clock, database id), not something this test times.
        let position = try clients[2].value("SELECT position FROM note_tag WHERE tag_id = 't'")
        #expect(position == 10.databaseValue || position == 20.databaseValue, "\(position)")
        #expect(try clients[0].value("SELECT count(*) FROM note_tag WHERE tag_id = 'u'") == 0.databaseValue, "the deletion wins")
    }

    @Test("a composite foreign key follows its parent: a child created while its parent link is deleted elsewhere is cascaded everywhere")
    func compositeForeignKeys() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(2, on: remote)
        try clients[0].execute("""
            INSERT INTO note VALUES ('n', 'note'); INSERT INTO tag VALUES ('t', 'tag');
            INSERT INTO note_tag VALUES ('n', 't', 1);
            INSERT INTO tag_comment VALUES ('c1', 'n', 't', 'old comment');
            """)
        try await Self.settle(clients)
        try clients[0].execute("DELETE FROM note_tag WHERE note_id = 'n' AND tag_id = 't'")
        #expect(try clients[0].count("tag_comment") == 0, "SQLite cascades locally")
        try clients[1].execute("INSERT INTO tag_comment VALUES ('c2', 'n', 't', 'written meanwhile')")
        try await clients[1].sync()
        let warnings = try await clients[0].sync().warnings
        #expect(warnings.contains { warning in
            if case .apply(.rowRemovedWithDeletedParent(table: "tag_comment", _, _), _) = warning { true } else { false }
        }, "\(warnings)")
        try await Self.settle(clients)
        #expect(try clients[0].count("tag_comment") == 0 && clients[1].count("tag_comment") == 0)
        let removed = try clients[0].localStore.removedRows()
        #expect(removed.contains { $0.table == "tag_comment" && $0.valuesJSON.contains("written meanwhile") }, "the removed child is kept")
    }

    @Test("whole stores carry composite keys; a re-base keeps unpushed edits of composite-keyed rows")
    func wholeStoresAndRebase() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(2, on: remote)
        try clients[0].execute("""
            INSERT INTO note VALUES ('n', 'note'); INSERT INTO tag VALUES ('t', 'tag'), ('u', 'other');
            INSERT INTO note_tag VALUES ('n', 't', 1);
            INSERT INTO cell VALUES (x'01', 1, 1.0, 'a', 1), (x'01', 2, 1.0, 'b', 2);
            """)
        try await Self.settle(clients)
        _ = try await clients[0].manager.uploadWholeStore()
        try clients[1].execute("""
            UPDATE note_tag SET position = 7 WHERE note_id = 'n';
            INSERT INTO note_tag VALUES ('n', 'u', 2);
            UPDATE cell SET label = 'edited' WHERE row = 1;
            DELETE FROM cell WHERE row = 2;
            """)
        let installed = try await clients[1].manager.downloadWholeStore()
        #expect(installed.wholeStoreInstalled != nil)
        #expect(try clients[1].value("SELECT position FROM note_tag WHERE tag_id = 't'") == 7.databaseValue, "the unpushed edit survives the re-base")
        #expect(try clients[1].count("note_tag") == 2 && clients[1].count("cell") == 1)
        try await Self.settle(clients)
        #expect(try clients[0].value("SELECT label FROM cell") == "edited".databaseValue)

        let scratch = try TemporaryDirectory()
        let file = scratch.url.appendingPathComponent("newcomer.sqlite")
        _ = try await clients[0].manager.uploadWholeStore()
        try await clients[0].application.downloadWholeStore(of: TestClient.documentID, to: file)
        let newcomer = try DatabaseQueue(path: file.path)
        let links = try await newcomer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note_tag") }
        #expect(links == 2)
        try newcomer.close()
    }

    @Test("the history finds the changes of one composite-keyed row by its key as quote() spells it")
    func historyByCompositeKey() async throws {
        let remote = try TestRemote(.memory)
        let clients = try Self.clients(1, on: remote)
        try clients[0].execute("INSERT INTO note VALUES ('n', 'note'); INSERT INTO tag VALUES ('t', 'tag'); INSERT INTO note_tag VALUES ('n', 't', 1)")
        try await clients[0].sync()
        try clients[0].execute("UPDATE note_tag SET position = 2")
        try await clients[0].sync()
        let log = try await clients[0].manager.history(matching: HistoryQuery(key: "'n','t'", includeRows: true))
        #expect(log.entries.flatMap { $0.rows ?? [] }.map { "\($0.table) \($0.operation)" } == ["note_tag insert", "note_tag update"])
    }
}

extension CompositeKeyTests {
    @Test("a row key that is not a key of the table's composite key holds that client's sets back; other clients go on")
    func malformedCompositeKeyHoldsBack() async throws {
        let remote = try TestRemote(.memory)
        // A client whose table has a one-column key, as a damaged or foreign client would send.
        let odd = try TestClient("odd", remote: remote.store, schema: "CREATE TABLE pair (k TEXT PRIMARY KEY NOT NULL, v TEXT)", tables: ["pair"])
        let schema = "CREATE TABLE pair (a TEXT NOT NULL, b TEXT NOT NULL, v TEXT, PRIMARY KEY (a, b))"
        let anna = try TestClient("anna", remote: remote.store, schema: schema, tables: ["pair"])
        let ben = try TestClient("ben", remote: remote.store, schema: schema, tables: ["pair"])
        try odd.execute("INSERT INTO pair VALUES ('just one value', 'odd')")
        try await odd.sync()
        try anna.execute("INSERT INTO pair VALUES ('x', 'it''s', 'from anna')")
        try await anna.sync()
        let report = try await ben.sync()
        #expect(report.warnings.contains { warning in
            if case .unreadableChangeSet(_, let client, let reason) = warning { client.rawValue == "odd" && reason.contains("composite key") } else { false }
        }, "\(report.warnings)")
        #expect(try ben.value("SELECT v FROM pair WHERE a = 'x' AND b = 'it''s'") == "from anna".databaseValue)
        #expect(try ben.count("pair") == 1)
    }
}
