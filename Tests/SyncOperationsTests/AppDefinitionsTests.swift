import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import TestSupport
import Testing

/// Schemas whose indexes use a collation and a SQL function that only the application defines:
/// SQLite cannot read or write such a table on a connection without them, so every file of the
/// schema RollingSync opens (snapshots, downloaded stores, restores) must get the app's own.
@Suite("Schemas with the application's own collations and functions")
struct AppDefinitionsTests {
    static let schema = NotesSchema.sql + """
        CREATE INDEX note_by_title ON note (title COLLATE app);
        CREATE INDEX note_by_label ON note (label(body));
        """

    /// The app's definitions: a case-insensitive collation and a lower-casing function.
    static let define: @Sendable (Database) -> Void = { db in
        db.add(collation: DatabaseCollation("app") { $0.lowercased() < $1.lowercased() ? .orderedAscending : $0.lowercased() > $1.lowercased() ? .orderedDescending : .orderedSame })
        db.add(function: DatabaseFunction("label", argumentCount: 1, pure: true) { values in
            (String.fromDatabaseValue(values[0]) ?? "").lowercased()
        })
    }

    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in define(db) }
        return configuration
    }

    /// The notes of a database file opened with the app's definitions, and its integrity check.
    static func notes(inFileAt url: URL) throws -> (notes: [String], check: [String]) {
        let database = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT id || ':' || title || ':' || body FROM note INDEXED BY note_by_title ORDER BY title COLLATE app"),
                try String.fetchAll(db, sql: "PRAGMA integrity_check")
            )
        }
    }

    @Test("restore, upload, bootstrap and download into a file work with the app's definitions; without them, a typed error or a notice")
    func wholeStoresAndRestores() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, schema: Self.schema, definitions: Self.define)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'beta', 'B', 1), ('n2', 'f1', 'Alpha', 'A', 2)")
        try await anna.sync()
        let expected = ["n2:Alpha:A", "n1:beta:B"]
        let directory = try TemporaryDirectory()

        // No whole store yet: the restore replays the sets into an empty database of the schema.
        let replayed = directory.url.appendingPathComponent("replayed.sqlite")
        let replay = try await anna.application.restore(document: TestClient.documentID, to: replayed, at: .at(Date()), schemaFrom: anna.localStore)
        #expect(replay.base == nil)
        #expect(try Self.notes(inFileAt: replayed) == (expected, ["ok"]))

        // Push-store checks its snapshot; a new client bootstraps from it and applies the tail.
        let upload = try await anna.manager.uploadWholeStore()
        try anna.execute("INSERT INTO note VALUES ('n3', 'f1', 'Gamma', 'C', 3)")
        try await anna.sync()
        let ben = try TestClient("ben", remote: remote.store, schema: Self.schema, definitions: Self.define)
        let bootstrap = try await ben.manager.downloadWholeStore()
        #expect(bootstrap.wholeStoreInstalled?.unit == upload.unit)
        #expect(bootstrap.appliedSets == 1)
        #expect(try ben.dump() == anna.dump())
        #expect(try await ben.database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])

        // Into a new file, and restored from the store plus the tail.
        let downloaded = directory.url.appendingPathComponent("downloaded.sqlite")
        try await ben.application.downloadWholeStore(of: TestClient.documentID, to: downloaded, configuration: Self.configuration)
        #expect(try Self.notes(inFileAt: downloaded) == (expected, ["ok"]))
        let restored = directory.url.appendingPathComponent("restored.sqlite")
        let restore = try await ben.application.restore(document: TestClient.documentID, to: restored, at: .at(Date()), schemaFrom: ben.localStore)
        #expect(restore.base != nil)
        #expect(try Self.notes(inFileAt: restored) == (["n2:Alpha:A", "n1:beta:B", "n3:Gamma:C"], ["ok"]))

        // Without the definitions (a tool that cannot know them): a typed error naming what is
        // missing, nothing written; a deep verification reports the store as not checked.
        let elsewhere = directory.url.appendingPathComponent("elsewhere.sqlite")
        let error = await #expect(throws: SyncError.self) {
            try await ben.application.downloadWholeStore(of: TestClient.documentID, to: elsewhere)
        }
        #expect(error?.code == .local)
        #expect(error?.message.contains("collation app") == true)
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        let verification = try await ben.application.verify(document: TestClient.documentID, options: VerificationOptions(deep: true))
        #expect(verification.isClean)
        #expect(verification.problems.filter { $0.kind == .uncheckedWholeStore }.map(\.severity) == [.notice])
    }
}
