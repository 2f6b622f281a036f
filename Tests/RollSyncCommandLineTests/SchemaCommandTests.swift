import Foundation
import TestSupport
import Testing

/// Schema changes between clients of a notes app: each client is the real `rollsync` binary run
/// as a separate process on its own database, written by the sqlite3 tool as an application would,
/// all sharing a folder remote. Covers `sync`'s exit code 5 (upgrade required), `tables`,
/// `tables add`, `tables remove` and `migrate`, and that every refusal leaves the file untouched.
@Suite("rollsync follows schema changes")
struct SchemaCommandTests {
    @Test("the issue's scenario: A adds notes.priority; B, not migrated, gets exit code 5 but syncs everything else, then migrates")
    func addColumnBeforeTheOtherClientMigrates() async throws {
        let lab = try SchemaLab()
        let a = try await lab.client("A")
        let b = try await lab.client("B")

        // An earlier set of A, then the migration and a write to the new column in a later set.
        try await lab.sql(a, "INSERT INTO notes (id, title) VALUES ('x', 'Shopping'), ('w', 'Work')")
        try await lab.sync(a)
        try await lab.sql(a, "ALTER TABLE notes ADD COLUMN priority INTEGER DEFAULT 0; UPDATE notes SET priority = 3 WHERE id = 'x'")
        let migratedSync = try await lab.sync(a)
        #expect(migratedSync.standardOutput.contains("schema: notes: column priority added; 1 row"), "\(migratedSync.standardOutput)")

        // B has not migrated: A's earlier set is applied, the later one waits; B's own row is pushed.
        try await lab.sql(b, "INSERT INTO notes (id, title, body) VALUES ('b1', 'From B', 'typed on B')")
        let held = try await lab.sync(b, json: true, expect: 5)
        let result = try #require(try held.jsonObjects().first)
        #expect(result["appliedChanges"] as? Int == 2)
        #expect(result["pushedChanges"] as? Int == 1)
        let upgrade = try #require((result["upgradeRequired"] as? [[String: Any]])?.first)
        #expect(upgrade["table"] as? String == "notes" && upgrade["column"] as? String == "priority")
        #expect(held.standardError.contains("rollsync: error: upgrade required: change sets from 1 client need a newer schema (column notes.priority)"))
        #expect(held.standardError.contains("everything else was synced"))
        #expect(try await lab.rows(b) == ["'b1','From B','typed on B'", "'w','Work',NULL", "'x','Shopping',NULL"])

        let again = try await lab.sync(b, expect: 5)
        #expect(again.standardOutput.contains("warning: change set "), "\(again.standardOutput)")
        #expect(again.standardOutput.contains("needs column notes.priority, which this database lacks; it waits until you migrate (upgrade required)"))
        let hint = try #require(again.standardError.split(separator: "\n").first { $0.hasPrefix("hint: ") })
        #expect(hint.contains("ALTER TABLE notes ADD COLUMN priority") && hint.contains("rollsync migrate") && hint.contains("rollsync sync --db"), "\(hint)")
        let status = try #require(try await lab.rollsync(["status", "--db", b, "--json"]).jsonObjects().first)
        #expect((status["waitingForUpgrade"] as? [String])?.first?.hasPrefix("column notes.priority") == true, "\(status)")

        try await lab.sync(a)
        #expect(try await lab.sql(a, "SELECT title FROM notes WHERE id = 'b1'") == ["From B"], "A received B's row")

        // B migrates with sqlite3: the held-back set applies.
        try await lab.sql(b, "ALTER TABLE notes ADD COLUMN priority INTEGER DEFAULT 0")
        let upgraded = try await lab.sync(b)
        #expect(upgraded.standardOutput.contains("schema: notes: column priority added"), "\(upgraded.standardOutput)")
        #expect(try await lab.sql(b, "SELECT priority FROM notes WHERE id = 'x'") == ["3"])
        try await lab.sync(a)
        try await lab.expectIdentical(a, b)
    }

    /// Who migrates first in ``migrationOrders(bFirst:)``.
    @Test("both migration orders end identical: B migrates before A's set reaches it, or B migrates and writes first", arguments: [false, true])
    func migrationOrders(bFirst: Bool) async throws {
        let lab = try SchemaLab()
        let a = try await lab.client("A")
        let b = try await lab.client("B")
        try await lab.sql(a, "INSERT INTO notes (id, title) VALUES ('x', 'Shopping')")
        try await lab.sync(a)
        try await lab.sync(b)
        let alter = "ALTER TABLE notes ADD COLUMN priority INTEGER DEFAULT 0"

        if bFirst {
            // B migrates and writes; A, not migrated, holds B's set back until it migrates too.
            try await lab.sql(b, "\(alter); UPDATE notes SET priority = 5 WHERE id = 'x'; INSERT INTO notes VALUES ('y', 'Yoga', NULL, 2)")
            try await lab.sync(b)
            try await lab.sql(a, "UPDATE notes SET body = 'milk' WHERE id = 'x'")
            let held = try await lab.sync(a, expect: 5)
            #expect(held.standardOutput.contains("needs column notes.priority"), "\(held.standardOutput)")
            try await lab.sql(a, alter)
            try await lab.sync(a)
            try await lab.sync(b)
            #expect(try await lab.sql(b, "SELECT body, priority FROM notes WHERE id = 'x'") == ["milk|5"])
        } else {
            // A migrates and writes; B migrates before syncing, so nothing is ever held back.
            try await lab.sql(a, "\(alter); UPDATE notes SET priority = 3 WHERE id = 'x'")
            try await lab.sync(a)
            try await lab.sql(b, "\(alter); INSERT INTO notes VALUES ('y', 'Yoga', NULL, 2)")
            let synced = try await lab.sync(b)
            #expect(!synced.standardOutput.contains("warning"), "\(synced.standardOutput)")
            try await lab.sync(a)
            #expect(try await lab.sql(b, "SELECT priority FROM notes WHERE id = 'x'") == ["3"])
        }
        #expect(try await lab.sql(a, "SELECT id, priority FROM notes ORDER BY id") == ["x|\(bFirst ? 5 : 3)", "y|2"])
        try await lab.expectIdentical(a, b)
    }

    @Test("tables add publishes a table's existing rows; a client without it gets exit code 5 until it adds it; tables remove stops capture")
    func addAndRemoveTables() async throws {
        let lab = try SchemaLab()
        let tags = "; CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, label TEXT NOT NULL)"
        let a = try await lab.client("A", schema: SchemaLab.notesSchema + tags + "; INSERT INTO tags VALUES ('t1', 'red'), ('t2', 'blue')")
        let b = try await lab.client("B", schema: SchemaLab.notesSchema + tags)
        let c = try await lab.client("C", schema: SchemaLab.notesSchema + tags)

        let added = try await lab.rollsync(["tables", "add", "tags", "--db", a])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("now also syncs tags: its 2 existing rows will be published by the next sync"), "\(added.standardOutput)")
        let listed = try #require(try await lab.rollsync(["tables", "--db", a, "--json"]).jsonObjects().first)
        let tables = try #require(listed["tables"] as? [[String: Any]])
        #expect(tables.map { $0["name"] as? String } == ["notes", "tags"])
        #expect(tables.last?["keyColumns"] as? [String] == ["id"] && tables.last?["columns"] as? [String] == ["label"])
        let addedByC = try #require(try await lab.rollsync(["tables", "add", "tags", "--db", c, "--json"]).jsonObjects().first)
        #expect((addedByC["added"] as? [[String: Any]])?.first?["publishedRows"] as? Int == 0)

        try await lab.sql(a, "INSERT INTO notes (id, title) VALUES ('n1', 'Tagged later')")
        let published = try #require(try await lab.sync(a, json: true).jsonObjects().first)
        #expect(published["pushedChanges"] as? Int == 3)

        // C added the table: it receives the rows. B did not: A's set waits, with exit code 5.
        try await lab.sync(c)
        #expect(try await lab.sql(c, "SELECT id, label FROM tags ORDER BY id") == ["t1|red", "t2|blue"])
        let held = try await lab.sync(b, expect: 5)
        #expect(held.standardOutput.contains("changes table tags, which this database does not sync; it waits until you add it"))
        #expect(held.standardError.contains("hint: ") && held.standardError.contains("rollsync tables add tags --db \(b)"), "\(held.standardError)")
        #expect(try await lab.sql(b, "SELECT count(*) FROM tags") == ["0"])
        try await lab.sync(b, expect: 5)

        #expect(try await lab.rollsync(["tables", "add", "tags", "--db", b]).status == 0)
        try await lab.sync(b)
        #expect(try await lab.sql(b, "SELECT id, label FROM tags ORDER BY id") == ["t1|red", "t2|blue"])
        #expect(try await lab.sql(b, "SELECT title FROM notes") == ["Tagged later"])
        try await lab.expectIdentical(a, b, table: "tags")
        try await lab.expectIdentical(b, c, table: "tags")

        // A stops syncing tags: its rows stay, new writes are not captured or sent.
        try await lab.sql(a, "INSERT INTO tags VALUES ('t3', 'green')")
        let removed = try #require(try await lab.rollsync(["tables", "remove", "tags", "--db", a, "--json"]).jsonObjects().first)
        #expect(removed["removed"] as? [String] == ["tags"] && removed["tables"] as? [String] == ["notes"])
        #expect(removed["discardedPendingChanges"] as? Int == 1)
        try await lab.sql(a, "INSERT INTO tags VALUES ('t4', 'violet'); UPDATE tags SET label = 'crimson' WHERE id = 't1'")
        let status = try #require(try await lab.rollsync(["status", "--db", a, "--json"]).jsonObjects().first)
        #expect(status["pendingChanges"] as? Int == 0 && status["tables"] as? [String] == ["notes"])
        let afterRemoval = try #require(try await lab.sync(a, json: true).jsonObjects().first)
        #expect(afterRemoval["pushedChanges"] as? Int == 0)
        try await lab.sync(b)
        #expect(try await lab.sql(b, "SELECT id, label FROM tags ORDER BY id") == ["t1|red", "t2|blue"])
        #expect(try await lab.sql(a, "SELECT count(*) FROM tags") == ["4"])
    }

    @Test("migrate drops a column the triggers use; values other clients still send for it are ignored with a warning")
    func dropColumn() async throws {
        let lab = try SchemaLab()
        let a = try await lab.client("A")
        let b = try await lab.client("B")
        try await lab.sql(a, "INSERT INTO notes VALUES ('x', 'Shopping', 'milk')")
        try await lab.sync(a)
        try await lab.sync(b)

        // sqlite3 alone cannot: the capture triggers use the column (the README's hint).
        let refused = try await lab.sqlite(a, "ALTER TABLE notes DROP COLUMN body")
        #expect(refused.status != 0 && refused.standardError.contains("error in trigger rollingsync_"), "\(refused.standardError)")

        let migrated = try await lab.rollsync(["migrate", "--db", a, "--sql", "ALTER TABLE notes DROP COLUMN body", "--json"])
        #expect(migrated.status == 0, "\(migrated.standardError)")
        let changes = try #require(try migrated.jsonObjects().first?["schemaChanges"] as? [[String: Any]])
        #expect(changes.count == 1 && changes.first?["change"] as? String == "columnDropped" && changes.first?["column"] as? String == "body")
        let listed = try #require(try await lab.rollsync(["tables", "--db", a, "--json"]).jsonObjects().first?["tables"] as? [[String: Any]])
        #expect(listed.first?["columns"] as? [String] == ["title"])

        try await lab.sql(b, "UPDATE notes SET body = 'oat milk', title = 'Groceries' WHERE id = 'x'")
        try await lab.sync(b)
        let received = try await lab.sync(a)
        #expect(received.standardOutput.contains("sent values for notes.body, which was dropped here; they were ignored"), "\(received.standardOutput)")
        #expect(try await lab.rows(a) == ["'x','Groceries'"])

        try await lab.sql(a, "INSERT INTO notes VALUES ('y', 'Yoga')")
        try await lab.sync(a)
        try await lab.sync(b)
        #expect(try await lab.rows(b) == ["'x','Groceries','oat milk'", "'y','Yoga',NULL"])
    }

    @Test("migrate rebuilds a table (SQLite's 12 steps) without cascading into child rows, and capture goes on")
    func rebuildTable() async throws {
        let lab = try SchemaLab()
        let links = "; CREATE TABLE links (id TEXT PRIMARY KEY NOT NULL, note TEXT REFERENCES notes(id) ON DELETE CASCADE)"
        let a = try await lab.client("A", schema: SchemaLab.notesSchema + links, tables: ["notes", "links"])
        let b = try await lab.client("B", schema: SchemaLab.notesSchema + links, tables: ["notes", "links"])
        try await lab.sql(a, "INSERT INTO notes VALUES ('x', 'Shopping', 'milk'); INSERT INTO links VALUES ('l1', 'x')")
        try await lab.sync(a)
        try await lab.sync(b)

        // Make title NOT NULL with a default: a rebuild, on both clients.
        let rebuild = """
            CREATE TABLE notes_new (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL DEFAULT '', body TEXT);
            INSERT INTO notes_new SELECT id, coalesce(title, ''), body FROM notes;
            DROP TABLE notes;
            ALTER TABLE notes_new RENAME TO notes;
            """
        for client in [a, b] {
            let migrated = try await lab.rollsync(["migrate", "--db", client, "--sql", rebuild])
            #expect(migrated.status == 0, "\(migrated.standardError)")
            #expect(migrated.standardOutput.contains("the synced tables' columns did not change"), "\(migrated.standardOutput)")
            #expect(try await lab.sql(client, "SELECT id, note FROM links") == ["l1|x"], "the child row survived the rebuild")
        }
        try await lab.sql(b, "INSERT INTO notes VALUES ('y', 'Yoga', NULL); INSERT INTO links VALUES ('l2', 'y')")
        try await lab.sync(b)
        try await lab.sync(a)
        #expect(try await lab.sql(a, "SELECT id FROM links ORDER BY id") == ["l1", "l2"])
        try await lab.expectIdentical(a, b)
        try await lab.expectIdentical(a, b, table: "links")
    }

    @Test("refusals change nothing: the database stays byte-identical")
    func refusalsChangeNothing() async throws {
        let lab = try SchemaLab()
        let schema = SchemaLab.notesSchema + """
            ; CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, label TEXT);
            CREATE VIEW counters AS SELECT 1 AS n;
            CREATE TABLE links (id TEXT PRIMARY KEY NOT NULL, note TEXT REFERENCES notes(id));
            INSERT INTO notes VALUES ('x', 'Shopping', 'milk'), ('y', 'Yoga', NULL);
            INSERT INTO links VALUES ('l1', 'x'); INSERT INTO tags VALUES ('t1', 'red')
            """
        let database = try await lab.client("A", schema: schema)
        try await lab.sync(database)
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["tables", "add", "nope"], 1, "has no table named 'nope'; nothing was changed"),
            (["tables", "add", "counters"], 4, "it is a view; only tables can be synchronized"),
            (["tables", "add", "tags", "counters"], 4, "table counters cannot be synchronized"),
            (["tables", "remove", "tags"], 1, "does not sync a table named 'tags'; nothing was changed"),
            (["migrate", "--sql", "ALTR TABLE notes ADD COLUMN x"], 4, "the migration failed and was rolled back;"),
            (["migrate", "--sql", "ALTER TABLE notes ADD COLUMN priority INTEGER; UPDATE nope SET x = 1"], 4, "no such table: nope"),
            (["migrate", "--sql", "ALTER TABLE notes RENAME COLUMN id TO uuid"], 4, "the key of synced table notes changed"),
            (
                ["migrate", "--sql", "CREATE TABLE n2 (id BLOB PRIMARY KEY NOT NULL, title TEXT, body TEXT); INSERT INTO n2 SELECT * FROM notes; DROP TABLE notes; ALTER TABLE n2 RENAME TO notes"],
                4, "the key of synced table notes changed"
            ),
            (["migrate", "--sql", "DROP TABLE notes"], 4, "table notes does not exist"),
            (["migrate", "--sql", "BEGIN; ALTER TABLE notes DROP COLUMN body; COMMIT"], 4, "the migration failed"),
            (
                ["migrate", "--sql", "CREATE TABLE n2 (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT); INSERT INTO n2 SELECT * FROM notes WHERE id <> 'x'; DROP TABLE notes; ALTER TABLE n2 RENAME TO notes"],
                4, "leaves rows of links referring to rows that do not exist"
            ),
            (["migrate", "--file", lab.workspace.path("missing.sql")], 1, "there is no readable file at"),
        ]
        for (arguments, status, message) in cases {
            let before = lab.workspace.fingerprint(of: database)
            let outcome = try await lab.rollsync(arguments + ["--db", database])
            #expect(outcome.status == status, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.hasPrefix("rollsync: error: ") && outcome.standardError.contains(message), "\(arguments): \(outcome.standardError)")
            #expect(lab.workspace.fingerprint(of: database) == before, "\(arguments) changed the database")
        }
        let keyChange = try await lab.rollsync(["migrate", "--db", database, "--sql", "ALTER TABLE notes RENAME COLUMN id TO uuid"])
        #expect(keyChange.standardError.contains("hint: a synced table's key column must keep its name and type"), "\(keyChange.standardError)")
        #expect(try await lab.rollsync(["tables", "--db", database, "--json"]).jsonObjects().first?["tables"] as? [[String: Any]] != nil)

        // Offline commands need a database set up with init, and never create one.
        let plain = lab.workspace.path("plain.sqlite")
        try await lab.sql(plain, SchemaLab.notesSchema)
        let before = lab.workspace.fingerprint(of: plain)
        for arguments in [["tables"], ["tables", "add", "notes"], ["migrate", "--sql", "ALTER TABLE notes DROP COLUMN body"]] {
            let outcome = try await lab.rollsync(arguments + ["--db", plain])
            #expect(outcome.status == 4 && outcome.standardError.contains("is not set up for syncing"), "\(arguments): \(outcome.standardError)")
        }
        #expect(lab.workspace.fingerprint(of: plain) == before)
    }

    /// A notes app's schema as real apps write it: an FTS5 index kept by triggers (with its shadow
    /// tables), an FTS4 and an R*Tree table, a foreign key to a column made unique by a separate
    /// `CREATE UNIQUE INDEX`, an `updated_at` trigger and a count of notes kept in the notebook.
    static let appSchema = """
        CREATE TABLE notebooks (id TEXT PRIMARY KEY NOT NULL, slug TEXT NOT NULL, name TEXT, note_count INTEGER NOT NULL DEFAULT 0);
        CREATE UNIQUE INDEX notebooks_slug ON notebooks (slug);
        CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, notebook TEXT REFERENCES notebooks(slug), title TEXT, body TEXT, updated_at TEXT);
        CREATE VIRTUAL TABLE old_fts USING fts4(words);
        CREATE VIRTUAL TABLE places USING rtree(id, min_x, max_x, min_y, max_y);
        \(AppSchemaShapes.touchTrigger("notes_touch", on: "notes", stamp: "strftime('%Y-%m-%dT%H:%M:%f', 'now')"))
        \(AppSchemaShapes.fts5Index("notes_fts", on: "notes", columns: ["title", "body"]))
        CREATE TRIGGER notes_count AFTER INSERT ON notes BEGIN
            UPDATE notebooks SET note_count = note_count + 1 WHERE slug = new.notebook;
        END;
        """

    @Test("init takes a schema with full-text and R*Tree tables, a unique-index foreign key and app triggers; clients converge and go quiet")
    func appSchemaWithVirtualTablesAndTriggers() async throws {
        let lab = try SchemaLab()
        let tables = ["notebooks", "notes"]
        let a = try await lab.client("A", schema: Self.appSchema, tables: tables)
        let b = try await lab.client("B", schema: Self.appSchema, tables: tables)
        try await lab.sql(a, "INSERT INTO notebooks (id, slug, name) VALUES ('nb', 'trips', 'Trips')")
        try await lab.sync(a)
        try await lab.sync(b)
        try await lab.sql(a, "INSERT INTO notes (id, notebook, title, body) VALUES ('n1', 'trips', 'Lisbon', 'pastel de nata')")
        try await lab.sync(a)
        // B's count trigger fires for A's note and its write is skipped: A's set carried A's count.
        let applied = try await lab.sync(b)
        let output = applied.standardOutput + applied.standardError
        #expect(output.contains("warning: this database's triggers tried to write notebooks \"nb\""), "\(output)")
        try await lab.sql(b, "UPDATE notes SET title = 'Lisbon in May' WHERE id = 'n1'")
        for file in [b, a, b, a] { try await lab.sync(file) }
        #expect(try await lab.sql(b, "SELECT note_count FROM notebooks") == ["1"])
        for table in tables { try await lab.expectIdentical(a, b, table: table) }
        for file in [a, b] {
            #expect(try await lab.sql(file, "SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'may'").count == 1)
            try await lab.sql(file, "INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")
            let quiet = try #require(try await lab.sync(file, json: true).jsonObjects().first)
            #expect(quiet["pushedChanges"] as? Int == 0 && quiet["appliedChanges"] as? Int == 0, "\(quiet)")
        }
    }

    @Test("naming a virtual or shadow table is refused with the reason, and the file is left as it was", arguments: ["notes_fts", "notes_fts_data", "places"])
    func virtualTablesAreRefusedByName(_ table: String) async throws {
        let lab = try SchemaLab()
        let file = lab.workspace.path("app.sqlite")
        try await lab.sql(file, Self.appSchema)
        let before = lab.workspace.fingerprint(of: file)
        let outcome = try await lab.rollsync(["init", "--db", file, "--remote", lab.workspace.path("shared"), "--table", "notes", "--table", table])
        #expect(outcome.status == 4, "\(outcome.standardError)")
        let reason = table.hasSuffix("_data") ? "it is a shadow table" : "it is a virtual table"
        #expect(outcome.standardError.contains(reason) && outcome.standardError.contains("synchronize the tables"), "\(outcome.standardError)")
        #expect(lab.workspace.fingerprint(of: file) == before)
    }

    @Test("init --all-tables syncs every table it can (composite, STRING, UUID and nullable keys too), lists the others with the reason; NULL keys stay local")
    func initAllTables() async throws {
        let lab = try SchemaLab()
        let schema = Self.appSchema + """
            CREATE TABLE items (uuid STRING PRIMARY KEY NOT NULL, title TEXT);
            CREATE TABLE pages (id TEXT PRIMARY KEY, body TEXT);
            CREATE TABLE note_tags (note_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (note_id, tag)) WITHOUT ROWID;
            CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER);
            CREATE VIEW recent AS SELECT * FROM notes;
            """
        var files: [String] = []
        for name in ["A", "B"] {
            let file = lab.workspace.path("\(name).sqlite")
            try await lab.sql(file, schema)
            let initialised = try await lab.rollsync(["init", "--db", file, "--remote", lab.workspace.path("shared"), "--all-tables", "--json"])
            try #require(initialised.status == 0, "\(initialised.standardError)")
            let result = try #require(try initialised.jsonObjects().first)
            #expect(result["tables"] as? [String] == ["counters", "items", "note_tags", "notebooks", "notes", "pages"], "\(result)")
            let leftOut = (result["leftOut"] as? [[String: String]] ?? []).map { "\($0["table"] ?? ""): \($0["reason"] ?? "")" }
            #expect(leftOut.map { String($0.prefix { $0 != ":" }) } == ["notes_fts", "old_fts", "places", "recent"], "\(leftOut)")
            #expect(leftOut.contains { $0.hasPrefix("recent: it is a view") }, "\(leftOut)")
            files.append(file)
        }
        let onlyIndex = lab.workspace.path("C.sqlite")
        try await lab.sql(onlyIndex, "CREATE VIRTUAL TABLE search USING fts5(body)")
        let refused = try await lab.rollsync(["init", "--db", onlyIndex, "--remote", lab.workspace.path("shared"), "--all-tables"])
        #expect(refused.status == 4, "\(refused.standardError)")
        #expect(refused.standardError.contains("no table of") && refused.standardError.contains("search: it is a virtual table"), "\(refused.standardError)")
        // The integer-keyed table syncs like the others.
        try await lab.sql(files[0], "INSERT INTO counters (n) VALUES (7), (8)")
        try await lab.sql(files[0], """
            INSERT INTO items VALUES ('5e0c9c2a-7d1b-4b7e-9a55-0c6d3f1e2b44', 'lamp');
            INSERT INTO pages VALUES ('p', 'published'), (NULL, 'draft');
            INSERT INTO note_tags VALUES ('n1', 'home'), ('n1', 'it''s, with a comma'), ('n2', 'home');
            """)
        let pushed = try await lab.sync(files[0])
        let pushedOutput = pushed.standardOutput + pushed.standardError
        #expect(pushedOutput.contains("1 row of pages has no key (NULL) and stays on this client"), "\(pushedOutput)")
        try await lab.sync(files[1])
        #expect(try await lab.sql(files[1], "SELECT title FROM items") == ["lamp"])
        #expect(try await lab.sql(files[1], "SELECT count(*) FROM pages WHERE id IS NULL") == ["0"])
        try await lab.expectIdentical(files[0], files[1], table: "items")
        try await lab.expectIdentical(files[0], files[1], table: "counters")
        #expect(try await lab.sql(files[1], "SELECT count(*) FROM note_tags") == ["3"])
        try await lab.sql(files[1], "UPDATE note_tags SET tag = 'work' WHERE note_id = 'n1' AND tag = 'home'; DELETE FROM note_tags WHERE note_id = 'n2'")
        try await lab.sync(files[1])
        try await lab.sync(files[0])
        #expect(try await lab.sql(files[0], "SELECT note_id || ' ' || tag FROM note_tags ORDER BY 1") == ["n1 it's, with a comma", "n1 work"])
        try await lab.expectIdentical(files[0], files[1], table: "note_tags")
    }

    @Test("migrate reads --file, reports added columns and publishes values written into them; help documents exit code 5")
    func migrateFromFile() async throws {
        let lab = try SchemaLab()
        let a = try await lab.client("A")
        let b = try await lab.client("B")
        try await lab.sql(a, "INSERT INTO notes VALUES ('x', 'Shopping', 'milk'), ('y', 'Yoga', NULL)")
        try await lab.sync(a)
        try await lab.sync(b)
        let script = lab.workspace.path("v2.sql")
        try Data("ALTER TABLE notes RENAME COLUMN body TO details;\n".utf8).write(to: URL(fileURLWithPath: script))
        for client in [a, b] {
            let migrated = try await lab.rollsync(["migrate", "--db", client, "--file", script, "--sql", "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0"])
            #expect(migrated.status == 0, "\(migrated.standardError)")
            #expect(migrated.standardOutput.contains("notes: column details added"), "\(migrated.standardOutput)")
            #expect(migrated.standardOutput.contains("notes: column body dropped"), "\(migrated.standardOutput)")
            #expect(migrated.standardOutput.contains("notes: column pinned added"), "\(migrated.standardOutput)")
        }
        try await lab.sql(b, "UPDATE notes SET pinned = 1, details = 'oat milk' WHERE id = 'x'")
        try await lab.sync(b)
        try await lab.sync(a)
        #expect(try await lab.sql(a, "SELECT details, pinned FROM notes WHERE id = 'x'") == ["oat milk|1"])
        try await lab.expectIdentical(a, b)

        let help = try await RollsyncProcess.run(["--help"])
        #expect(help.standardOutput.contains("  5  upgrade required: some change sets need a newer schema"), "\(help.standardOutput)")
    }
}

/// Clients of a notes app in one scratch directory, sharing the folder `shared`, written with the
/// sqlite3 tool.
private struct SchemaLab {
    static let notesSchema = "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT)"

    let workspace: Workspace
    let sqlite3: String

    init() throws {
        workspace = try Workspace()
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let directory = path.split(separator: ":").first(where: { FileManager.default.isExecutableFile(atPath: "\($0)/sqlite3") }) else {
            throw TestSupportError("the sqlite3 command-line tool is not on PATH (Debian: apt-get install sqlite3)")
        }
        sqlite3 = "\(directory)/sqlite3"
    }

    /// Creates `name.sqlite` with `schema` (any SQL) and runs `rollsync init` on it for `tables`.
    func client(_ name: String, schema: String = notesSchema, tables: [String] = ["notes"]) async throws -> String {
        let file = workspace.path("\(name).sqlite")
        try await sql(file, schema)
        let initialised = try await rollsync(
            ["init", "--db", file, "--remote", workspace.path("shared"), "--description", name] + tables.flatMap { ["--table", $0] }
        )
        try #require(initialised.status == 0, "init \(name): \(initialised.standardError)")
        return file
    }

    /// Runs `sql` with sqlite3 on `file`; `quoted`: rows printed as SQL literals, `header`: with the column names.
    func sqlite(_ file: String, _ sql: String, quoted: Bool = false, header: Bool = false) async throws -> TestProcess.Outcome {
        try await TestProcess.run(
            sqlite3,
            ["-batch", "-bail"] + (header ? ["-header"] : []) + (quoted || header ? ["-cmd", ".mode quote"] : []) + ["-cmd", ".timeout 10000", file, sql]
        )
    }

    /// The lines `sql` prints on `file` (it must succeed).
    @discardableResult
    func sql(_ file: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let outcome = try await sqlite(file, sql)
        try #require(outcome.status == 0, "sqlite3 '\(sql)': \(outcome.standardError)", sourceLocation: sourceLocation)
        return outcome.standardOutput.split(separator: "\n").map(String.init)
    }

    /// Runs `rollsync arguments…`.
    func rollsync(_ arguments: [String]) async throws -> TestProcess.Outcome {
        try await RollsyncProcess.run(arguments)
    }

    /// Runs `rollsync sync` on `file` and expects exit code `status`.
    @discardableResult
    func sync(
        _ file: String, json: Bool = false, expect status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestProcess.Outcome {
        let outcome = try await rollsync(["sync", "--db", file] + (json ? ["--json"] : []))
        #expect(outcome.status == status, "sync \(file): \(outcome.standardOutput)\(outcome.standardError)", sourceLocation: sourceLocation)
        return outcome
    }

    /// The rows of `table` (every column, SQL-quoted), by key.
    func rows(_ file: String, table: String = "notes", sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let outcome = try await sqlite(file, "SELECT * FROM \(table) ORDER BY 1", quoted: true)
        try #require(outcome.status == 0, "\(outcome.standardError)", sourceLocation: sourceLocation)
        return outcome.standardOutput.split(separator: "\n").map(String.init)
    }

    /// Expects `table` to have the same columns and rows in both databases.
    func expectIdentical(_ first: String, _ second: String, table: String = "notes", sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let query = "SELECT * FROM \(table) ORDER BY 1"
        let left = try await sqlite(first, query, header: true)
        let right = try await sqlite(second, query, header: true)
        #expect(left.status == 0 && right.status == 0, sourceLocation: sourceLocation)
        #expect(left.standardOutput == right.standardOutput, "\(table) differs:\n\(left.standardOutput)\n---\n\(right.standardOutput)", sourceLocation: sourceLocation)
        #expect(!left.standardOutput.isEmpty, sourceLocation: sourceLocation)
    }
}
