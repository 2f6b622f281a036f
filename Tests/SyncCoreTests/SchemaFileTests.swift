import Foundation
import GRDB
@testable import SyncCore
import TestSupport
import Testing

@Suite("Files of the app's schema opened with the app's configuration")
struct SchemaFileTests {
    /// A file whose indexes use the collation `app` and the function `label`, written on a
    /// connection that defines both.
    static func file(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.url.appendingPathComponent("schema.sqlite")
        var configuration = Configuration()
        configuration.prepareDatabase(define)
        let database = try DatabaseQueue(path: url.path, configuration: configuration)
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, name TEXT, title TEXT COLLATE app);
                CREATE INDEX t_by_label ON t (label(name));
                INSERT INTO t VALUES ('a', 'Name', 'Title');
                """)
        }
        try database.close()
        return url
    }

    static let define: @Sendable (Database) -> Void = { db in
        db.add(collation: DatabaseCollation("app") { $0 < $1 ? .orderedAscending : $0 > $1 ? .orderedDescending : .orderedSame })
        db.add(function: DatabaseFunction("label", argumentCount: 1, pure: true) { String.fromDatabaseValue($0[0])?.lowercased() })
    }

    @Test("SQLite's messages about a missing collation or function become a MissingDefinitionError naming it")
    func missingDefinitions() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.file(in: directory)
        let plain = try DatabaseQueue(path: url.path)
        defer { try? plain.close() }
        let collation = #expect(throws: MissingDefinitionError.self) {
            try MissingDefinitionError.translating { try plain.read { db in try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY title") } }
        }
        #expect(collation?.definition == "collation app")
        let unknown = #expect(throws: MissingDefinitionError.self) {
            try MissingDefinitionError.translating { try plain.write { db in try db.execute(sql: "INSERT INTO t (id, name) VALUES ('b', 'x')") } }
        }
        #expect(unknown?.definition == "function label()")
        let noSuch = #expect(throws: MissingDefinitionError.self) {
            try MissingDefinitionError.translating { try plain.read { db in try Row.fetchAll(db, sql: "SELECT label('x')") } }
        }
        #expect(noSuch?.definition == "function label()")
        #expect(throws: DatabaseError.self) {
            try MissingDefinitionError.translating { try plain.read { db in try Row.fetchAll(db, sql: "SELECT * FROM missing") } }
        }
    }

    @Test("a read-only open uses the app's definitions, and falls back to SQLite's defaults when its setup writes")
    func readOnlyOpen() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.file(in: directory)
        var configuration = Configuration()
        configuration.prepareDatabase(Self.define)
        let reader = try SchemaFile.openReadOnly(url, configuration: configuration)
        #expect(try reader.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        try reader.close()

        // A setup that writes (an app that turns WAL on itself) cannot run on a read-only connection.
        var writing = configuration
        writing.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        let fallback = try SchemaFile.openReadOnly(url, configuration: writing)
        #expect(try fallback.read { db in try String.fetchOne(db, sql: "SELECT name FROM t") } == "Name")
        #expect(throws: MissingDefinitionError.self) {
            try MissingDefinitionError.translating { try fallback.read { db in try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY title") } }
        }
        try fallback.close()
        #expect(try Data(contentsOf: url)[18] == 1, "the file is still in rollback-journal mode")
    }
}
