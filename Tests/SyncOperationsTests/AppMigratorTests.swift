import FileRemote
import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import TestSupport
import Testing

/// The application's own GRDB `DatabaseMigrator` beside RollingSync (issue: GRDB's DEBUG recipe
/// `eraseDatabaseOnSchemaChange` erased a synced database): RollingSync records its migrations in
/// its own table, never in `grdb_migrations`, and `hasSchemaChangesIgnoringSync` tells the app's
/// schema changes apart from RollingSync's tables and triggers.
@Suite("The application's own migrator")
struct AppMigratorTests {
    static func appMigrator(secondMigration: String = "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0") -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
        }
        migrator.registerMigration("v2") { db in try db.execute(sql: secondMigration) }
        return migrator
    }

    @Test("RollingSync leaves grdb_migrations to the app; the DEBUG erase check ignores RollingSync and still sees the app's changes")
    func appMigratorSeesOnlyItsOwnSchema() async throws {
        let folder = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let registry = RemoteStoreRegistry()
        registry.register(FileRemoteStore.self)
        let database = try DatabaseQueue(path: folder.url.appendingPathComponent("app.sqlite").path)
        try Self.appMigrator().migrate(database, upTo: "v1")
        let notebook = try await DocumentSyncManager.open(
            database: database, remote: shared.url, registry: registry,
            configuration: SyncConfiguration(applicationID: "com.example.notes", tables: ["note"])
        )
        try await database.write { db in try db.execute(sql: "INSERT INTO note VALUES ('n1', 'kept')") }
        _ = try await notebook.synchronize()

        let (applied, grdbSeesChanges, syncSeesChanges, superseded) = try await database.read { db in
            (
                try Self.appMigrator().appliedIdentifiers(db),
                try Self.appMigrator().hasSchemaChanges(db),
                try Self.appMigrator().hasSchemaChangesIgnoringSync(db),
                try Self.appMigrator().hasBeenSuperseded(db)
            )
        }
        #expect(applied == ["v1"], "no RollingSync identifier in grdb_migrations")
        #expect(!superseded)
        #expect(grdbSeesChanges, "GRDB's own check counts RollingSync's tables and triggers (why the erase recipe needs the other one)")
        #expect(!syncSeesChanges)

        // The app's next migration runs as usual; the synced table keeps syncing its new column.
        try Self.appMigrator().migrate(database)
        #expect(try await database.read(Self.appMigrator().hasSchemaChangesIgnoringSync) == false)
        try await database.write { db in try db.execute(sql: "UPDATE note SET pinned = 1") }
        #expect(try await notebook.synchronize().pushedChanges == 1)
        #expect(try await database.read { try String.fetchOne($0, sql: "SELECT title FROM note") } == "kept")

        // A migration edited during development is a change.
        let edited = Self.appMigrator(secondMigration: "ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 1")
        #expect(try await database.read(edited.hasSchemaChangesIgnoringSync))
    }

    /// GRDB's own `eraseDatabaseOnSchemaChange` counts RollingSync's tables and triggers as a
    /// schema change (it sets aside only `grdb_` and `sqlite_` objects, by name), so it erases a
    /// synced database at the next launch; the guide recommends `hasSchemaChangesIgnoringSync`
    /// instead. An app that uses it anyway loses nothing it synced: the erased database opens as a
    /// new client and its first sync brings every row back, with its ids.
    @Test("an app using GRDB's eraseDatabaseOnSchemaChange gets every synced row back at the next sync")
    func eraseOnSchemaChangeKeepsSyncedData() async throws {
        let folder = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("app.sqlite").path
        func launch() async throws -> (DatabaseQueue, DocumentSyncManager) {
            var migrator = DatabaseMigrator()
            migrator.eraseDatabaseOnSchemaChange = true
            migrator.registerMigration("v1") { db in
                try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)")
            }
            let database = try DatabaseQueue(path: path)
            try migrator.migrate(database)
            let manager = try await DocumentSyncManager.open(
                database: database, store: try FileRemoteStore(root: shared.url),
                configuration: SyncConfiguration(applicationID: "com.example.notes", tables: ["note"])
            )
            return (database, manager)
        }
        let (first, firstManager) = try await launch()
        try await first.write { db in try db.execute(sql: "INSERT INTO note (title) VALUES ('one'), ('two')") }
        _ = try await firstManager.synchronize()
        await firstManager.close()
        try first.close()

        let (second, secondManager) = try await launch()
        #expect(try await second.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM note") } == 0, "GRDB erased the database")
        let report = try await secondManager.synchronize()
        #expect(report.appliedChanges == 2)
        let rows = try await second.read { try Row.fetchAll($0, sql: "SELECT id, title FROM note ORDER BY id").map { "\($0)" } }
        #expect(rows == ["[id:1 title:\"one\"]", "[id:2 title:\"two\"]"], "every synced row is back, with its id")
        await secondManager.close()
    }
}
