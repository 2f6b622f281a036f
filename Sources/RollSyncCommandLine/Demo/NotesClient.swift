import FileRemote
import Foundation
import GRDB
import SyncCore

/// One client of the demo: its own SQLite file with the notes schema, bound to the shared folder.
struct NotesClient: Sendable {
    /// The notes schema: notes and tags, joined by `note_tags` with foreign keys; TEXT UUID keys.
    static let schema = """
        CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '');
        CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
        CREATE TABLE note_tags (
            id TEXT PRIMARY KEY NOT NULL,
            note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE
        );
        """

    /// The client's name (also its client identifier).
    var name: String
    /// Its database.
    var database: DatabaseQueue
    /// Its sync manager.
    var manager: DocumentSyncManager

    /// Creates `name`'s database in `directory`, registers the three tables and binds it to the
    /// document `notebook` of the application `rollsync-demo` in the folder `remote`.
    init(name: String, directory: URL, remote: URL) throws {
        self.name = name
        database = try DatabaseQueue(path: directory.appendingPathComponent("\(name).sqlite").path)
        try database.write { db in try db.execute(sql: Self.schema) }
        let localStore = try LocalStore(writer: database)
        for table in ["notes", "tags", "note_tags"] {
            try localStore.register(table: table)
        }
        let application = ApplicationSyncManager(
            store: try FileRemoteStore(root: remote),
            applicationID: try SyncIdentifier("rollsync-demo"),
            device: DeviceInfo(clientID: try SyncIdentifier(name), description: "\(name)'s notes", registeredAt: Date())
        )
        manager = try DocumentSyncManager(
            application: application, documentID: try SyncIdentifier("notebook"), localStore: localStore,
            documentDescription: "The demo's shared notebook"
        )
    }

    /// Adds a note with `tags` (reusing a tag of the same name if this client has one); returns its id.
    @discardableResult
    func addNote(_ title: String, body: String, tags: [String]) throws -> String {
        let noteID = UUID().uuidString
        try database.write { db in
            try db.execute(sql: "INSERT INTO notes (id, title, body) VALUES (?, ?, ?)", arguments: [noteID, title, body])
            for tag in tags {
                let tagID = try String.fetchOne(db, sql: "SELECT id FROM tags WHERE name = ?", arguments: [tag]) ?? {
                    let id = UUID().uuidString
                    try db.execute(sql: "INSERT INTO tags (id, name) VALUES (?, ?)", arguments: [id, tag])
                    return id
                }()
                try db.execute(
                    sql: "INSERT INTO note_tags (id, note_id, tag_id) VALUES (?, ?, ?)",
                    arguments: [UUID().uuidString, noteID, tagID]
                )
            }
        }
        return noteID
    }

    /// Renames the note `noteID`.
    func rename(_ noteID: String, to title: String) throws {
        try database.write { db in try db.execute(sql: "UPDATE notes SET title = ? WHERE id = ?", arguments: [title, noteID]) }
    }

    /// The id of the note titled `title`.
    func noteID(titled title: String) throws -> String {
        try database.read { db in
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM notes WHERE title = ?", arguments: [title]) else {
                throw CommandLineError(.localDatabase, "the demo lost its note '\(title)'")
            }
            return id
        }
    }

    /// Deletes the note `noteID` (its tag links go with it).
    func delete(_ noteID: String) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM notes WHERE id = ?", arguments: [noteID]) }
    }

    /// The notebook as lines `title [tags] — body`, sorted: equal lines on every client mean converged.
    func contents() throws -> [String] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT n.title, n.body,
                           (SELECT group_concat(name, ', ') FROM (SELECT t.name FROM note_tags nt JOIN tags t ON t.id = nt.tag_id
                            WHERE nt.note_id = n.id ORDER BY t.name)) AS tags
                    FROM notes n ORDER BY n.title, n.id
                    """
            ).map { row in
                "\(row["title"] as String) [\(row["tags"] as String? ?? "")] — \(row["body"] as String)"
            }
        }
    }

    /// Syncs and returns the report.
    func sync() async throws -> SyncReport {
        try await manager.synchronize()
    }
}
