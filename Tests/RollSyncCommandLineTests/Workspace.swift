import Foundation
import GRDB
import TestSupport
import Testing

/// A scratch directory for one test with helpers to make and inspect SQLite databases; removed
/// when the test ends.
final class Workspace {
    private let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory(prefix: "rollsync-cli-test")
    }

    /// The directory.
    var directory: URL { scratch.url }

    /// The absolute path of `name` in the workspace.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Creates the database `name` with a `notes` table (TEXT UUID key), a `counters` table
    /// (INTEGER rowid key), an unsyncable view `recent`, and `rows` notes.
    @discardableResult
    func makeNotesDatabase(_ name: String, rows: [(id: String, title: String)] = []) throws -> String {
        let file = path(name)
        let queue = try DatabaseQueue(path: file)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE counters (n INTEGER PRIMARY KEY, value INTEGER)")
            try db.execute(sql: "CREATE VIEW recent AS SELECT * FROM notes")
            for row in rows {
                try db.execute(sql: "INSERT INTO notes (id, title) VALUES (?, ?)", arguments: [row.id, row.title])
            }
        }
        try queue.close()
        return file
    }

    /// Two notes databases, `first.sqlite` and `second.sqlite`, set up with `rollsync init` to
    /// sync the `notes` table through the folder `shared` of the workspace.
    func makeInitialisedPair() async throws -> (remote: String, first: String, second: String) {
        let remote = path("shared")
        let first = try makeNotesDatabase("first.sqlite")
        let second = try makeNotesDatabase("second.sqlite")
        for database in [first, second] {
            let outcome = try await RollsyncProcess.run(["init", "--db", database, "--remote", remote, "--table", "notes"])
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
        return (remote, first, second)
    }

    /// Runs `sql` on the database at `file`.
    func execute(_ sql: String, in file: String) throws {
        let queue = try DatabaseQueue(path: file)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// The notes of the database at `file` as `id=title`, sorted by id.
    func notes(in file: String) throws -> [String] {
        let queue = try DatabaseQueue(path: file)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, title FROM notes ORDER BY id").map { "\($0["id"] as String)=\($0["title"] as String)" }
        }
    }

    /// The bytes of `file` and of every file next to it that SQLite could have created for it
    /// (journal, WAL, shared memory): equal fingerprints mean the database was not touched.
    func fingerprint(of file: String) -> [String: Data?] {
        var result: [String: Data?] = [:]
        for suffix in ["", "-journal", "-wal", "-shm"] {
            result[suffix] = FileManager.default.contents(atPath: file + suffix)
        }
        return result
    }
}
