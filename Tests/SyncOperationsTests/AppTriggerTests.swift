import Foundation
import GRDB
import SyncCore
import TestSupport
import Testing

/// The app's own triggers and virtual tables (Docs/Conflicts.md, "Your own triggers"): full-text
/// indexes kept by triggers follow every applied, installed and re-based row; triggers that write
/// synced tables (a touched `updated_at`, a counter in another table, audit rows with random keys)
/// never make clients diverge or keep pushing; a validation trigger refuses only the row it
/// refuses; a view the app writes through `INSTEAD OF` triggers syncs like its table.
@Suite("The app's own triggers and virtual tables")
struct AppTriggerTests {
    /// A notes app: notes in folders that count their notes, an audit log written by triggers, an
    /// `updated_at` touched by a trigger, an FTS5 index over the notes (external content, kept by
    /// triggers), an unsynced cache a trigger fills, an FTS4 and an R*Tree table beside them, and
    /// a view with `INSTEAD OF` triggers.
    static let schema = """
        CREATE TABLE folder (id TEXT PRIMARY KEY NOT NULL, name TEXT, note_count INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE note (
            id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folder(id),
            title TEXT, body TEXT, updated_at TEXT);
        CREATE TABLE audit (id TEXT PRIMARY KEY NOT NULL, note_id TEXT, action TEXT);
        CREATE TABLE title_cache (note_id TEXT PRIMARY KEY, title TEXT);
        \(AppSchemaShapes.touchTrigger("note_touch", on: "note", stamp: "strftime('%Y-%m-%dT%H:%M:%f', 'now') || '-' || hex(randomblob(4))"))
        \(AppSchemaShapes.fts5Index("note_fts", on: "note", columns: ["title", "body"]))
        CREATE VIRTUAL TABLE legacy_fts USING fts4(words);
        CREATE VIRTUAL TABLE place USING rtree(id, min_x, max_x, min_y, max_y);
        CREATE TRIGGER note_count_insert AFTER INSERT ON note BEGIN
            UPDATE folder SET note_count = note_count + 1 WHERE id = new.folder_id;
        END;
        CREATE TRIGGER note_count_delete AFTER DELETE ON note BEGIN
            UPDATE folder SET note_count = note_count - 1 WHERE id = old.folder_id;
        END;
        CREATE TRIGGER note_audit AFTER INSERT ON note BEGIN
            INSERT INTO audit VALUES (lower(hex(randomblob(16))), new.id, 'created');
        END;
        CREATE TRIGGER note_cache AFTER UPDATE OF title ON note BEGIN
            INSERT OR REPLACE INTO title_cache VALUES (new.id, upper(new.title));
        END;
        CREATE VIEW note_in_folder AS SELECT note.id, note.title, folder.name AS folder_name FROM note JOIN folder ON folder.id = note.folder_id;
        CREATE TRIGGER note_in_folder_insert INSTEAD OF INSERT ON note_in_folder BEGIN
            INSERT INTO note (id, folder_id, title) VALUES (new.id, (SELECT id FROM folder WHERE name = new.folder_name), new.title);
        END;
        CREATE TRIGGER note_in_folder_update INSTEAD OF UPDATE OF title ON note_in_folder BEGIN
            UPDATE note SET title = new.title WHERE id = new.id;
        END;
        """
    static let tables = ["folder", "note", "audit"]

    /// Clients of one fresh in-memory remote (or of `remote`), synced with folder `f`.
    static func clients(_ count: Int = 2, on remote: TestRemote? = nil) async throws -> [TestClient] {
        let remote = try remote ?? TestRemote(.memory)
        var clients: [TestClient] = []
        for index in 0..<count {
            clients.append(try TestClient("client-\(index)", remote: remote.store, schema: schema, tables: tables))
        }
        try clients[0].execute("INSERT INTO folder (id, name) VALUES ('f', 'Trips')")
        try await settle(clients)
        return clients
    }

    /// Syncs every client in turn until a whole round moves nothing (at most `rounds`), then checks
    /// the strict end state: identical synced tables, clean integrity and references, FTS indexes
    /// that match their rows, caches that match theirs, and a last round that pushes nothing.
    @discardableResult
    static func settle(_ clients: [TestClient], rounds: Int = 4, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        var quietAfter = rounds + 1
        for round in 1...rounds {
            var moved = false
            for client in clients {
                let report = try await client.sync()
                moved = moved || report.appliedSets > 0 || report.pushedChanges > 0
            }
            if !moved {
                quietAfter = round
                break
            }
        }
        #expect(quietAfter <= rounds, "the clients still push after \(rounds) rounds", sourceLocation: sourceLocation)
        let reference = try clients[0].dump(tables: tables)
        for client in clients {
            let dump = try client.dump(tables: tables)
            #expect(dump == reference, "\(client.name) differs: \(Set(dump).symmetricDifference(reference).sorted())", sourceLocation: sourceLocation)
            #expect(try client.integrityCheck() == ["ok"], sourceLocation: sourceLocation)
            #expect(try client.foreignKeyViolations().isEmpty, sourceLocation: sourceLocation)
            #expect(try client.ftsIsConsistent(), "\(client.name): the FTS index does not match the notes", sourceLocation: sourceLocation)
            #expect(try client.cacheIsConsistent(), "\(client.name): the title cache does not match the notes", sourceLocation: sourceLocation)
            #expect(try !client.localStore.hasPendingChanges(), "\(client.name) still has pending changes", sourceLocation: sourceLocation)
        }
        return quietAfter
    }

    @Test("notes inserted, edited and deleted elsewhere are found by the FTS5 index on every client")
    func ftsFollowsAppliedRows() async throws {
        let clients = try await Self.clients()
        let (writer, reader) = (clients[0], clients[1])
        try writer.execute("INSERT INTO note (id, folder_id, title, body) VALUES ('n1', 'f', 'Lisbon trip', 'pastel de nata')")
        try writer.execute("INSERT INTO note (id, folder_id, title, body) VALUES ('n2', 'f', 'Porto trip', 'francesinha')")
        try await Self.settle(clients)
        #expect(try reader.search("nata") == ["n1"])
        try writer.execute("UPDATE note SET body = 'bacalhau' WHERE id = 'n1'")
        try writer.execute("DELETE FROM note WHERE id = 'n2'")
        try await Self.settle(clients)
        #expect(try reader.search("nata").isEmpty)
        #expect(try reader.search("bacalhau") == ["n1"])
        #expect(try reader.search("francesinha").isEmpty)
        #expect(try reader.count("legacy_fts") == 0)
    }

    @Test("an updated_at touched by a trigger converges and the clients go quiet")
    func touchTriggerConverges() async throws {
        let clients = try await Self.clients(3)
        try clients[0].execute("INSERT INTO note (id, folder_id, title) VALUES ('n1', 'f', 'Draft')")
        try await Self.settle(clients)
        try clients[1].execute("UPDATE note SET title = 'Final' WHERE id = 'n1'")
        let quietAfter = try await Self.settle(clients)
        #expect(quietAfter <= 3, "quiet at most two rounds after the edit's own")
        let stamp = try clients[1].value("SELECT updated_at FROM note WHERE id = 'n1'")
        #expect(stamp != .null)
        for client in clients {
            #expect(try client.value("SELECT updated_at FROM note WHERE id = 'n1'") == stamp, "the editor's stamp everywhere")
            #expect(try client.value("SELECT title FROM title_cache WHERE note_id = 'n1'") == "FINAL".databaseValue)
        }
    }

    @Test("a count kept by triggers in another synced table converges after concurrent inserts")
    func counterConverges() async throws {
        let clients = try await Self.clients()
        try clients[0].execute("INSERT INTO note (id, folder_id, title) VALUES ('a', 'f', 'One')")
        try clients[1].execute("INSERT INTO note (id, folder_id, title) VALUES ('b', 'f', 'Two')")
        try await clients[0].sync()
        // The receiver's count trigger fires for the incoming note; its write is skipped and said.
        let report = try await clients[1].sync()
        let skipped = report.warnings.compactMap { warning -> [DatabaseValue]? in
            guard case .apply(.appTriggerWritesSkipped(table: let table, keys: let keys), _) = warning, table == "folder" else { return nil }
            return keys
        }
        #expect(skipped == [["f".databaseValue]], "\(report.warnings)")
        try await Self.settle(clients)
        let counts = try clients.map { try $0.value("SELECT note_count FROM folder WHERE id = 'f'") }
        #expect(Set(counts).count == 1, "\(counts)")
    }

    @Test("audit rows a trigger inserts with random keys exist once, everywhere")
    func auditRowsAreNotDuplicated() async throws {
        let clients = try await Self.clients(3)
        try clients[0].execute("INSERT INTO note (id, folder_id, title) VALUES ('a', 'f', 'One')")
        try clients[2].execute("INSERT INTO note (id, folder_id, title) VALUES ('b', 'f', 'Two')")
        try await Self.settle(clients)
        for client in clients {
            #expect(try client.count("audit") == 2)
        }
    }

    @Test("a validation trigger on one client refuses only the row it refuses; later sets still arrive")
    func validationTriggerRejectsOnlyItsRow() async throws {
        let clients = try await Self.clients()
        let (writer, strict) = (clients[0], clients[1])
        try strict.execute("""
            CREATE TRIGGER no_secrets BEFORE INSERT ON note WHEN new.title LIKE '%secret%' BEGIN
                SELECT RAISE(ABORT, 'no secrets here');
            END
            """)
        try writer.execute("INSERT INTO note (id, folder_id, title) VALUES ('ok', 'f', 'Groceries')")
        try writer.execute("INSERT INTO note (id, folder_id, title) VALUES ('bad', 'f', 'top secret')")
        try await writer.sync()
        let report = try await strict.sync()
        #expect(report.warnings.contains { "\($0)".contains("no secrets here") }, "\(report.warnings)")
        #expect(try strict.value("SELECT count(*) FROM note WHERE id = 'ok'") == 1.databaseValue)
        #expect(try strict.value("SELECT count(*) FROM note WHERE id = 'bad'") == 0.databaseValue)
        try writer.execute("UPDATE note SET title = 'Groceries and wine' WHERE id = 'ok'")
        try await writer.sync()
        try await strict.sync()
        #expect(try strict.value("SELECT title FROM note WHERE id = 'ok'") == "Groceries and wine".databaseValue)
        #expect(try strict.ftsIsConsistent())
    }

    @Test("rows written through a view's INSTEAD OF triggers sync like any write")
    func insteadOfTriggersOnAView() async throws {
        let clients = try await Self.clients()
        try clients[0].execute("INSERT INTO note_in_folder (id, title, folder_name) VALUES ('v', 'Via the view', 'Trips')")
        try await Self.settle(clients)
        try clients[1].execute("UPDATE note_in_folder SET title = 'Edited via the view' WHERE id = 'v'")
        try await Self.settle(clients)
        #expect(try clients[0].value("SELECT title FROM note WHERE id = 'v'") == "Edited via the view".databaseValue)
        #expect(try clients[0].search("edited") == ["v"])
    }

    @Test("a trigger writing with OR ABORT, OR FAIL or OR ROLLBACK to the same synced row twice in one set is skipped cleanly", arguments: ["ABORT", "FAIL", "ROLLBACK"])
    func conflictClausesOfAppTriggers(_ clause: String) async throws {
        // A trigger's conflict clause replaces those of the statements it fires, the guard's own.
        let schema = """
            CREATE TABLE list (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, list_id TEXT);
            CREATE TRIGGER item_count AFTER INSERT ON item BEGIN
                UPDATE OR \(clause) list SET n = n + 1 WHERE id = new.list_id;
            END;
            """
        let remote = try TestRemote(.memory)
        let writer = try TestClient("writer", remote: remote.store, schema: schema, tables: ["list", "item"])
        let reader = try TestClient("reader", remote: remote.store, schema: schema, tables: ["list", "item"])
        try writer.execute("INSERT INTO list (id) VALUES ('l'); INSERT INTO item VALUES ('a', 'l'); INSERT INTO item VALUES ('b', 'l')")
        try await writer.sync()
        let report = try await reader.sync()
        #expect(report.appliedSets == 1)
        #expect(try reader.dump(tables: ["list", "item"]) == writer.dump(tables: ["list", "item"]))
        #expect(try reader.value("SELECT n FROM list") == 2.databaseValue)
        #expect(try await reader.sync().pushedChanges == 0)
    }

    @Test("a large BLOB reaches the app's triggers whole, not as the zeros it is first written as")
    func largeBlobsReachTriggers() async throws {
        let schema = """
            CREATE TABLE photo (id TEXT PRIMARY KEY NOT NULL, data BLOB);
            CREATE TABLE thumbnail (photo_id TEXT PRIMARY KEY, head TEXT, size INTEGER);
            CREATE TRIGGER photo_thumbnail AFTER INSERT ON photo BEGIN
                INSERT INTO thumbnail VALUES (new.id, hex(substr(new.data, 1, 4)), length(new.data));
            END;
            """
        let remote = try TestRemote(.memory)
        let writer = try TestClient("writer", remote: remote.store, schema: schema, tables: ["photo"])
        let reader = try TestClient("reader", remote: remote.store, schema: schema, tables: ["photo"])
        let png = Data([0x89, 0x50, 0x4E, 0x47]) + Data(repeating: 7, count: 3 << 20)
        try writer.execute("INSERT INTO photo VALUES ('p', ?)", [png])
        try await writer.sync()
        try await reader.sync()
        #expect(try reader.value("SELECT head FROM thumbnail WHERE photo_id = 'p'") == "89504E47".databaseValue)
        #expect(try reader.value("SELECT size FROM thumbnail WHERE photo_id = 'p'") == png.count.databaseValue)
        #expect(try reader.value("SELECT data FROM photo WHERE id = 'p'") == png.databaseValue)
    }

    @Test("a whole store installed on a new client and re-based on an existing one keeps the FTS index and caches right")
    func wholeStoreInstallAndRebase() async throws {
        let remote = try TestRemote(.memory)
        let clients = try await Self.clients(on: remote)
        let (uploader, existing) = (clients[0], clients[1])
        try uploader.execute("INSERT INTO note (id, folder_id, title, body) VALUES ('n1', 'f', 'Lisbon', 'tram')")
        try await Self.settle(clients)
        try uploader.execute("UPDATE note SET title = 'Lisbon again' WHERE id = 'n1'")
        try await uploader.sync()
        _ = try await uploader.manager.uploadWholeStore()
        // An existing client with an unpushed edit re-bases onto the store.
        try existing.execute("INSERT INTO note (id, folder_id, title, body) VALUES ('n2', 'f', 'Porto', 'bridge')")
        _ = try await existing.manager.downloadWholeStore()
        // A new client starts from it.
        let newcomer = try TestClient("client-new", remote: remote.store, schema: Self.schema, tables: Self.tables)
        _ = try await newcomer.manager.downloadWholeStore()
        try await Self.settle(clients + [newcomer])
        for client in clients + [newcomer] {
            #expect(try client.search("tram") == ["n1"])
            #expect(try client.search("bridge") == ["n2"])
            #expect(try client.count("audit") == 2)
        }
    }
}

extension TestClient {
    /// The keys of the notes the FTS5 index finds for `query`.
    func search(_ query: String) throws -> [String] {
        try database.read { db in
            try String.fetchAll(db, sql: """
                SELECT note.id FROM note_fts JOIN note ON note.rowid = note_fts.rowid WHERE note_fts MATCH ? ORDER BY note.id
                """, arguments: [query])
        }
    }

    /// Whether the external-content FTS5 index `table` matches its rows (its own integrity check,
    /// which compares the index with the content table).
    func ftsIsConsistent(table: String = "note_fts") throws -> Bool {
        try database.write { db in
            do {
                try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES ('integrity-check', 1)")
                return true
            } catch {
                return false
            }
        }
    }

    /// Whether every note's cached title is its title in capitals (for the notes whose title was
    /// ever edited, the ones the trigger caches).
    func cacheIsConsistent() throws -> Bool {
        try value("""
            SELECT count(*) FROM title_cache AS c LEFT JOIN note ON note.id = c.note_id
            WHERE note.id IS NOT NULL AND c.title IS NOT upper(note.title)
            """) == 0.databaseValue
    }
}
