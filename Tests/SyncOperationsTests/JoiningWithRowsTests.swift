import Foundation
import GRDB
import SyncCore
import Testing

/// A database that joins a document with rows of its own (Docs/Conflicts.md, "Joining with rows
/// of its own"): its rows are published, never dropped; its first sync starts from the newest
/// whole store, where the document's version of a key it also holds is kept and its own is saved.
@Suite("Joining a document with rows of its own")
struct JoiningWithRowsTests {
    /// Anna's rows before she created the document: a folder, and two tags Ben holds too.
    static let annaRows = """
        INSERT INTO folder VALUES ('f-anna', 'Anna''s folder');
        INSERT INTO tag VALUES ('t-shared', 'label by anna');
        INSERT INTO tag VALUES ('t-same', 'same label');
        """
    /// Ben's rows before he joined: his own folder and note, and the two tags Anna holds (one with
    /// another label).
    static let benRows = """
        INSERT INTO folder VALUES ('f-ben', 'Ben''s folder');
        INSERT INTO note VALUES ('n-ben', 'f-ben', 'Ben''s note', 'body', 1);
        INSERT INTO tag VALUES ('t-shared', 'label by ben');
        INSERT INTO tag VALUES ('t-same', 'same label');
        """

    /// Anna, who created the document from her rows (her first sync uploaded a whole store of
    /// them), and Ben, whose database holds rows of its own and never synced.
    static func annaWithStoreAndBen() async throws -> (TestClient, TestClient) {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, schema: NotesSchema.sql + annaRows)
        try await anna.sync()
        let ben = try TestClient("ben", remote: remote.store, schema: NotesSchema.sql + benRows)
        return (anna, ben)
    }

    /// Syncs until nothing moves, then checks that the clients hold the same rows, that the checks
    /// of SQLite pass, that nothing is pending, and that a last round pushes nothing.
    static func expectConvergedAndQuiet(_ clients: [TestClient], _ context: Comment) async throws {
        for _ in 0..<3 {
            for client in clients { try await client.sync() }
        }
        let reference = try clients[0].dump()
        for client in clients {
            let dump = try client.dump()
            #expect(dump == reference, "\(context): \(client.name) differs in \(Set(dump).symmetricDifference(reference).sorted())")
            #expect(try client.foreignKeyViolations().isEmpty, context)
            #expect(try client.integrityCheck() == ["ok"], context)
            #expect(try !client.localStore.hasPendingChanges(), context)
            #expect(try await client.sync().pushedChanges == 0, "\(context): a last round pushes nothing")
        }
    }

    @Test("the creator's first sync uploads a whole store of the rows it held, once; a creator without rows uploads none")
    func creatorUploadsItsRows() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, schema: NotesSchema.sql + Self.annaRows)
        // Edits logged after set-up cover none of the rows: updates of rows no one received.
        try anna.execute("UPDATE tag SET label = label || ', edited'")
        let registration = try await anna.manager.register()
        #expect(registration.createdDocument && registration.existingRows == 3)
        #expect(try await anna.manager.register().existingRows == 0, "registering again keeps what the first left to the sync")
        let first = try await anna.sync()
        #expect(first.wholeStoreUploaded != nil, "registered by register(), uploaded by the next sync")
        #expect(first.pushedChanges == 2, "the rows travel in the store; only the two edits are changes")
        #expect(try await anna.sync().wholeStoreUploaded == nil, "once")

        let otherRemote = try TestRemote(.memory)
        let empty = try TestClient("anna", remote: otherRemote.store)
        #expect(try await empty.sync().wholeStoreUploaded == nil)
    }

    @Test("the first sync starts from the whole store; the joiner's rows reach everyone, a shared key takes the document's version")
    func firstSyncStartsFromTheStore() async throws {
        let (anna, ben) = try await Self.annaWithStoreAndBen()
        let first = try await ben.sync()
        #expect(first.wholeStoreInstalled != nil, "the first sync of a joining client installs the newest whole store")
        #expect(first.warnings.contains { warning in
            guard case .settledLocally(.rowsHeldBeforeJoiningReplaced(table: "tag", keys: let keys)) = warning else { return false }
            return keys == ["t-shared".databaseValue]
        }, "\(first.warnings)")
        #expect(try ben.value("SELECT label FROM tag WHERE id = 't-shared'") == "label by anna".databaseValue)
        let saved = try ben.localStore.removedRows()
        #expect(saved.count == 1 && saved[0].key == "t-shared".databaseValue && saved[0].valuesJSON.contains("label by ben"), "\(saved)")
        try await Self.expectConvergedAndQuiet([anna, ben], "first sync")
        #expect(try anna.value("SELECT title FROM note WHERE id = 'n-ben'") == "Ben's note".databaseValue)
        #expect(try anna.count("folder") == 2 && anna.count("tag") == 2)
        #expect(try anna.localStore.removedRows().isEmpty, "identical rows and the document's own are not conflicts")
    }

    @Test("registering again before the first sync keeps the join: the store is installed, the document's version kept")
    func registeringAgainKeepsTheJoin() async throws {
        let (anna, ben) = try await Self.annaWithStoreAndBen()
        #expect(try await ben.manager.register().existingRows == 4)
        #expect(try await ben.manager.register().existingRows == 0)
        let first = try await ben.sync()
        #expect(first.wholeStoreInstalled != nil)
        #expect(try ben.value("SELECT label FROM tag WHERE id = 't-shared'") == "label by anna".databaseValue)
        #expect(try ben.localStore.removedRows().map(\.key) == ["t-shared".databaseValue])
        try await Self.expectConvergedAndQuiet([anna, ben], "registered twice")
    }

    @Test("a table or a column the whole store lacks keeps the joiner's values, and they are published")
    func tablesAndColumnsTheStoreLacks() async throws {
        let remote = try TestRemote(.memory)
        // Anna's store syncs `folder` without its `color` column, and not `tag`.
        let anna = try TestClient(
            "anna", remote: remote.store, schema: NotesSchema.sql + "INSERT INTO folder VALUES ('f', 'Trips');", tables: ["folder"]
        )
        #expect(try await anna.sync().wholeStoreUploaded != nil)
        let newer = NotesSchema.sql + "ALTER TABLE folder ADD COLUMN color TEXT;"
        let ben = try TestClient(
            "ben", remote: remote.store,
            schema: newer + "INSERT INTO folder VALUES ('f', 'Trips', 'blue'); INSERT INTO tag VALUES ('t', 'travel');",
            tables: ["folder", "tag"]
        )
        let first = try await ben.sync()
        #expect(first.wholeStoreInstalled != nil)
        #expect(first.pushedChanges == 2, "the tag, and the folder's color")
        #expect(try ben.localStore.removedRows().isEmpty)
        let carol = try TestClient("carol", remote: remote.store, schema: newer, tables: ["folder", "tag"])
        try await carol.sync()
        #expect(try carol.dump(tables: ["folder", "tag"]) == ben.dump(tables: ["folder", "tag"]))
        #expect(try carol.value("SELECT color FROM folder WHERE id = 'f'") == "blue".databaseValue)
    }

    @Test("registered first and then pulled, as rollsync init and pull-store do; an edit made after joining wins")
    func registeredThenPulled() async throws {
        let (anna, ben) = try await Self.annaWithStoreAndBen()
        let registration = try await ben.manager.register()
        #expect(registration.existingRows == 4)
        #expect(try await ben.manager.register().existingRows == 0, "registering again publishes nothing")
        try ben.execute("UPDATE tag SET label = 'edited by ben after joining' WHERE id = 't-shared'")
        let report = try await ben.manager.downloadWholeStore()
        #expect(report.wholeStoreInstalled != nil)
        #expect(try ben.value("SELECT label FROM tag WHERE id = 't-shared'") == "edited by ben after joining".databaseValue)
        #expect(try ben.localStore.removedRows().isEmpty, "no value held before the join was replaced: the later edit covers the label")
        try await Self.expectConvergedAndQuiet([anna, ben], "pull-store")
        #expect(try anna.value("SELECT label FROM tag WHERE id = 't-shared'") == "edited by ben after joining".databaseValue)
        #expect(try anna.count("note") == 1)
    }

    @Test("without a whole store, the joiner's rows are published by its first sync")
    func withoutAStore() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store)
        try await anna.sync()
        try anna.execute("INSERT INTO folder VALUES ('f-new', 'made after init')")
        try await anna.sync()
        let ben = try TestClient("ben", remote: remote.store, schema: NotesSchema.sql + Self.benRows)
        let first = try await ben.sync()
        #expect(first.wholeStoreInstalled == nil)
        #expect(first.pushedChanges == 4)
        try await Self.expectConvergedAndQuiet([anna, ben], "no store")
        #expect(try anna.count("folder") == 2 && anna.count("note") == 1 && anna.count("tag") == 2)
        // Later whole stores are an ordinary re-base: the join is complete.
        _ = try await anna.manager.uploadWholeStore()
        _ = try await ben.manager.downloadWholeStore()
        #expect(try ben.localStore.removedRows().isEmpty)
        try await Self.expectConvergedAndQuiet([anna, ben], "a later re-base")
    }

    @Test("a client removed and registered again is no joiner: it publishes its own writes again, which change nothing")
    func reRegistrationIsNoJoin() async throws {
        let (anna, ben) = try await Self.annaWithStoreAndBen()
        try await ben.sync()
        try await Self.expectConvergedAndQuiet([anna, ben], "joined")
        _ = try await anna.manager.uploadWholeStore()  // with Ben's rows
        let before = try anna.dump()
        let written = try ben.value("""
            SELECT (SELECT count(DISTINCT table_id || ' ' || row_key) FROM rollingsync_cell_clocks
                    WHERE writer = (SELECT number FROM rollingsync_writers JOIN rollingsync_state ON database_id = client_id))
                 + (SELECT count(*) FROM rollingsync_tombstones)
            """)
        #expect(written == 2.databaseValue, "the rows Ben held before joining that the document lacked")
        let saved = try ben.localStore.removedRows().count
        try await anna.application.removeClient(ben.name, from: TestClient.documentID)
        let again = try await ben.sync()
        #expect(again.wholeStoreInstalled != nil, "a removed client re-bases")
        // Ben's two, and Anna's three from before the document, which only whole stores carried.
        #expect(again.pushedChanges == 2 + 3)
        #expect(try ben.localStore.removedRows().count == saved, "nothing yields as at a first join")
        try await Self.expectConvergedAndQuiet([anna, ben], "registered again")
        #expect(try anna.dump() == before)
    }

    @Test("integer keys: both clients' row 1 are kept, and the joiner's rows keep their ids")
    func integerKeys() async throws {
        let schema = "CREATE TABLE list (id INTEGER PRIMARY KEY, name TEXT);"
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, schema: schema + "INSERT INTO list VALUES (1, 'anna 1');", tables: ["list"])
        try await anna.sync()
        let ben = try TestClient(
            "ben", remote: remote.store, schema: schema + "INSERT INTO list VALUES (1, 'ben 1'), (2, 'ben 2');", tables: ["list"]
        )
        #expect(try await ben.sync().wholeStoreInstalled != nil)
        #expect(try ben.value("SELECT name FROM list WHERE id = 1") == "ben 1".databaseValue)
        #expect(try ben.value("SELECT name FROM list WHERE id = 2") == "ben 2".databaseValue)
        for _ in 0..<3 {
            for client in [anna, ben] { try await client.sync() }
        }
        for client in [anna, ben] {
            let names = try await client.database.read { db in try String.fetchAll(db, sql: "SELECT name FROM list ORDER BY name") }
            #expect(names == ["anna 1", "ben 1", "ben 2"], "\(client.name)")
            let last = try await client.sync()
            #expect(last.pushedChanges == 0)
        }
        #expect(try anna.value("SELECT name FROM list WHERE id = 1") == "anna 1".databaseValue)
    }
}
