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

    @Test("an open for reading uses the app's definitions, also when its setup cannot run read-only")
    func readOnlyOpen() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.file(in: directory)
        var configuration = Configuration()
        configuration.prepareDatabase(Self.define)
        let reader = try SchemaFile.openForReading(url, configuration: configuration)
        #expect(try reader.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        try reader.close()

        // A setup that writes (an app that turns WAL on itself) cannot run on a read-only
        // connection: the private copy is opened for writing, with the definitions.
        var writing = configuration
        writing.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        #expect(throws: DatabaseError.self) {
            var readOnly = writing
            readOnly.readonly = true
            _ = try DatabaseQueue(path: url.path, configuration: readOnly)
        }
        let fallback = try SchemaFile.openForReading(url, configuration: writing)
        #expect(try fallback.read { db in try String.fetchAll(db, sql: "SELECT title FROM t ORDER BY title") } == ["Title"])
        try fallback.close()

        // A setup that fails whatever the connection: its own error, not another one.
        struct KeychainLocked: Error {}
        var failing = configuration
        failing.prepareDatabase { _ in throw KeychainLocked() }
        #expect(throws: KeychainLocked.self) { try SchemaFile.openForReading(url, configuration: failing) }
    }

    @Test("a writable open keeps foreign keys off when asked, even if the app's setup turns them on")
    func foreignKeysStayOff() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.file(in: directory)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            Self.define(db)
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let copy = try SchemaFile.open(url, configuration: configuration, foreignKeys: false)
        #expect(try copy.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") } == false)
        try copy.close()
    }
}
