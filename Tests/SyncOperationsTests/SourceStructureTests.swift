import FileRemote
import Foundation
import GRDB
import SyncCore
import TestSupport
import Testing

/// SyncCore's structure: RollingSync's local tables have one migrator and one owner (databases
/// written by earlier releases upgrade and sync on; no file outside `Sources/SyncCore/LocalStore/`
/// touches them; only `ChangeLog` writes the change log and switches capture; only
/// `RemoteFormatFile` tells remote formats apart, and the `Synchronizer` only orchestrates), and
/// its folders depend on each other one way (`Scripts/folder-graph.py`).
@Suite("Source structure: one owner per table, one writer of the change log, folders without cycles")
struct SourceStructureTests {
    /// The repository's root, from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("a database written by the 2026-11-24 release (rollsync init, a sync, unpushed edits) opens, keeps everything and syncs on")
    func releaseDatabaseUpgrades() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("notes.sqlite")
        let fixture = Self.repository.appendingPathComponent("Tests/Fixtures/release-2026-11-24.sqlite")
        try FileManager.default.copyItem(at: fixture, to: file)
        var readOnly = Configuration()
        readOnly.readonly = true
        let releaseClocks = try DatabaseQueue(path: fixture.path, configuration: readOnly).read { db in
            try Row.fetchAll(db, sql: "SELECT table_id, row_key, column_name, clock, client_id FROM rollingsync_cell_clocks ORDER BY 1, 2, 3")
        }
        #expect(releaseClocks.count == 2, "the release pushed one insert and one edit")
        let database = try DatabaseQueue(path: file.path)
        let localStore = try LocalStore(writer: database)
        let (migrations, grdbMigrations, clientID) = try await database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM rollingsync_migrations ORDER BY identifier"),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                try String.fetchOne(db, sql: "SELECT value FROM rollingsync_cli_settings WHERE key = 'client-id'")
            )
        }
        #expect(migrations == [
            "rollingsync v1", "rollingsync v2: removed rows", "rollingsync v3: schema evolution", "rollingsync v4: row identities",
            "rollingsync v5: logged rowids", "rollingsync v6: writer numbers", "rollingsync v7: column sets", "rollingsync v8: first registration", "rollingsync v9: publishing again", "rollingsync_registration",
            "rollingsync_registration own sets",
        ], "the release's migrations moved to RollingSync's own table, and the new ones ran")
        let numberedClocks = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.table_id, c.row_key, c.column_name, c.clock, w.database_id AS client_id
                FROM rollingsync_cell_clocks AS c JOIN rollingsync_writers AS w ON w.number = c.writer ORDER BY 1, 2, 3
                """)
        }
        #expect(numberedClocks == releaseClocks, "every cell clock keeps its clock and its writer, now by number")
        #expect(grdbMigrations == ["rollsync-cli-v1"], "only the CLI's, until the CLI's own migrator moves it")
        #expect(try localStore.hasPendingChanges(), "the release's unpushed edits are kept")
        #expect(try localStore.registeredTableNames() == ["notes"])

        // Its remote is gone (a fresh folder): the database re-creates the document from its data.
        let remote = try TemporaryDirectory()
        let application = ApplicationSyncManager(
            store: try FileRemoteStore(root: remote.url), applicationID: try SyncIdentifier("com.example.release"),
            device: DeviceInfo(clientID: try SyncIdentifier(try #require(clientID)), description: "release fixture", registeredAt: Date())
        )
        let manager = try DocumentSyncManager(application: application, documentID: try SyncIdentifier("notebook"), localStore: localStore)
        let report = try await manager.synchronize()
        #expect(report.pushedChanges == 2 && report.wholeStoreUploaded != nil)
        #expect(try !localStore.hasPendingChanges())
        #expect(report.schemaChanges == [], "the release's capture triggers are replaced without a report: they captured every write")
        let triggersLoggingRowids = try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rollingsync%' AND sql LIKE '%row_id%'")
        }
        #expect(triggersLoggingRowids == 3, "insert, re-key and the one update trigger of both columns now log rowids")

        let newcomer = try TestClient(
            "newcomer", remote: try FileRemoteStore(root: remote.url), schema: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, body BLOB)",
            tables: ["notes"], applicationID: try SyncIdentifier("com.example.release")
        )
        _ = try await newcomer.manager.downloadWholeStore()
        #expect(try newcomer.count("notes") == 3)
        #expect(try newcomer.value("SELECT title FROM notes WHERE id = 'n1'") == "pending edit".databaseValue)
        #expect(try newcomer.value("SELECT title FROM notes WHERE id = 'n3'") == "pending insert".databaseValue)
        #expect(try newcomer.value("SELECT hex(body) FROM notes WHERE id = 'n1'") == "00FF".databaseValue)

        // A whole store the release uploaded names its cell clocks' writers by id: it installs.
        let latecomerRemote = try TemporaryDirectory()
        let latecomer = try TestClient(
            "latecomer", remote: try FileRemoteStore(root: latecomerRemote.url),
            schema: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, body BLOB)", tables: ["notes"]
        )
        let releaseStore = directory.url.appendingPathComponent("release-store.sqlite")
        try FileManager.default.copyItem(at: fixture, to: releaseStore)
        _ = try latecomer.localStore.installWholeStore(at: releaseStore)
        #expect(try latecomer.count("notes") == 3)
        let installedClocks = try latecomer.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.table_id, c.row_key, c.column_name, c.clock, w.database_id AS client_id
                FROM rollingsync_cell_clocks AS c JOIN rollingsync_writers AS w ON w.number = c.writer ORDER BY 1, 2, 3
                """)
        }
        #expect(installedClocks == releaseClocks, "the release store's cell clocks keep their writers")
    }

    @Test("a database of the 2026-11-24 release with an app's stale view and trigger (naming a dropped table) upgrades and syncs")
    func releaseDatabaseWithStaleViewUpgrades() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("notes.sqlite")
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Tests/Fixtures/release-2026-11-24.sqlite"), to: file)
        let database = try DatabaseQueue(path: file.path)
        try await database.write { db in
            try db.execute(sql: """
                CREATE TABLE archive (id TEXT PRIMARY KEY, title TEXT);
                CREATE VIEW archived_titles AS SELECT title FROM archive;
                CREATE TRIGGER notes_archive AFTER DELETE ON notes BEGIN INSERT INTO archive VALUES (old.id, old.title); END;
                DROP TABLE archive;
                """)
        }
        let localStore = try LocalStore(writer: database)
        let (clocks, clientID) = try await database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_cell_clocks AS c JOIN rollingsync_writers AS w ON w.number = c.writer"),
                try String.fetchOne(db, sql: "SELECT value FROM rollingsync_cli_settings WHERE key = 'client-id'")
            )
        }
        #expect(clocks == 2, "the release's clocks were renumbered")
        let remote = try TemporaryDirectory()
        let application = ApplicationSyncManager(
            store: try FileRemoteStore(root: remote.url), applicationID: try SyncIdentifier("com.example.release"),
            device: DeviceInfo(clientID: try SyncIdentifier(try #require(clientID)), description: "release fixture", registeredAt: Date())
        )
        let manager = try DocumentSyncManager(application: application, documentID: try SyncIdentifier("notebook"), localStore: localStore)
        #expect(try await manager.synchronize().pushedChanges == 2)
    }

    @Test("a database a newer release upgraded is refused unchanged; the command line's migrations are not taken for newer ones")
    func newerReleaseDatabaseRefused() throws {
        let directory = try TemporaryDirectory()
        let database = try DatabaseQueue(path: directory.url.appendingPathComponent("notes.sqlite").path)
        try database.write { db in try db.execute(sql: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT)") }
        try LocalStore(writer: database).register(table: "notes")
        try database.write { db in try db.execute(sql: "INSERT INTO rollingsync_migrations VALUES ('rollsync-cli-v1')") }
        _ = try LocalStore(writer: database)

        try database.write { db in try db.execute(sql: "INSERT INTO rollingsync_migrations VALUES ('rollingsync v99: from the future')") }
        let schemaVersion = { try database.read { db in try Int.fetchOne(db, sql: "PRAGMA schema_version") } }
        let before = try schemaVersion()
        let error = try #require(throws: LocalStoreError.self) { try LocalStore(writer: database) }
        #expect(error.code == .newerRelease && error.detail == "rollingsync v99: from the future")
        #expect(error.description.contains("newer RollingSync release"))
        #expect(try schemaVersion() == before, "nothing was changed")
    }

    @Test("no source file outside Sources/SyncCore/LocalStore/ names one of RollingSync's tables")
    func tablesHaveOneOwner() throws {
        let sources = Self.repository.appendingPathComponent("Sources/SyncCore")
        let owner = sources.appendingPathComponent("LocalStore").path + "/"
        var offenders: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" && !file.path.hasPrefix(owner) {
            let text = try String(contentsOf: file, encoding: .utf8)
            if text.contains("rollingsync_") { offenders.append(file.lastPathComponent) }
        }
        #expect(offenders == [], "these files name RollingSync's tables; ask LocalStore or LocalSyncState instead")
        #expect(files.count > 50, "the sources were found")
    }

    /// Foundation's `Process.run()` on Linux copies 256 bytes of each `/proc/self/fd` entry that
    /// `readdir` returns, reading past glibc's buffer (AddressSanitizer found it in our test run;
    /// swift-corelibs-foundation#5472, fixed after Swift 6.3.1): an intermittent crash of the
    /// process that starts a child. Children are started with posix_spawn (TestSupport's
    /// `TestProcess` and `SpawnedProcess`).
    @Test("no source or test starts a process with Foundation's Process")
    func noFoundationProcess() throws {
        let construction = try Regex(#"\bProcess(\(\)|\.run\(|\.init\()"#)
        var offenders: [String] = []
        var count = 0
        for folder in ["Sources", "Tests", "Fuzz/Sources"] {
            let root = Self.repository.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            // This file names what it looks for.
            for file in files where file.pathExtension == "swift" && file.path != #filePath {
                count += 1
                if try String(contentsOf: file, encoding: .utf8).contains(construction) { offenders.append(file.lastPathComponent) }
            }
        }
        #expect(offenders == [], "these files use Foundation's Process; use posix_spawn (TestProcess) instead")
        #expect(count > 300, "the sources were found")
    }

    @Test("only ChangeLog.swift writes the change log or turns capture off and on")
    func changeLogHasOneWriter() throws {
        let sources = Self.repository.appendingPathComponent("Sources")
        let owner = sources.appendingPathComponent("SyncCore/LocalStore/ChangeLog.swift").path
        let write = try Regex(#"(?i)\b(INSERT(\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM)\s+(main\.)?rollingsync_changes\b"#)
        let captureSwitch = try Regex(#"(?i)\bapplying\s*(=|FROM\s+(main\.)?rollingsync_state)|SELECT\s+applying\b"#)
        var offenders: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" && file.path != owner {
            let text = try String(contentsOf: file, encoding: .utf8)
            if text.contains(write) || text.contains(captureSwitch) {
                offenders.append(file.lastPathComponent)
            }
        }
        #expect(offenders == [], "these files write the change log or flip capture; call ChangeLog instead")
        #expect(files.count > 100, "the sources were found")
    }

    @Test("only RemoteFormatFile.swift tells remote format versions apart; the Synchronizer knows neither backends, compression nor log texts")
    func formatsAndPushHaveOneOwner() throws {
        let sources = Self.repository.appendingPathComponent("Sources")
        let owner = sources.appendingPathComponent("SyncCore/Remote/RemoteFormatFile.swift").path
        let versionBranch = try Regex(#"\bformat\.version\s*(>=|<=|==|!=|<|>)|\bversion\s*>=\s*2\b"#)
        var offenders: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" && file.path != owner {
            if try String(contentsOf: file, encoding: .utf8).contains(versionBranch) { offenders.append(file.lastPathComponent) }
        }
        #expect(offenders == [], "these files compare remote format versions; ask RemoteFormatFile's capabilities instead")
        #expect(files.count > 100, "the sources were found")
        let synchronizer = try String(contentsOf: sources.appendingPathComponent("SyncCore/Operations/Synchronizer.swift"), encoding: .utf8)
        for detail in ["implicitDirectories", "ChangeSetCompression", "compressesChangeSets", "case .remoteDeleteDiscardedLocalChanges", "markPushed"] {
            #expect(!synchronizer.contains(detail), "the Synchronizer handles \(detail); it belongs to the publisher, the coded remote or SyncLogText")
        }
    }

    @Test("SyncCore's folders depend on each other one way (Scripts/folder-graph.py finds no cycle)")
    func foldersHaveNoCycle() async throws {
        let outcome = try await TestProcess.run(
            "/usr/bin/env",
            ["python3", Self.repository.appendingPathComponent("Scripts/folder-graph.py").path, Self.repository.appendingPathComponent("Sources/SyncCore").path]
        )
        #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("Operations -> "), "the graph was read: \(outcome.standardOutput)")
    }

    /// A release may add warnings, events, phases and reasons without breaking an app's `switch`:
    /// every public enum of SyncCore that apps receive is `@nonexhaustive` (a `switch` over it
    /// needs `@unknown default:`). Only the answers an app gives stay exhaustive, since RollingSync
    /// must handle every one of them.
    @Test("every public enum apps receive is open (@nonexhaustive); only the answers apps give are closed")
    func receivedEnumsAreOpen() throws {
        let answers: Set = ["ConflictResolution", "RegistrationRecovery", "LastWriterWins"]
        let sources = Self.repository.appendingPathComponent("Sources/SyncCore")
        let declaration = try Regex(#"^\s*public enum (\w+)"#)
        var closed: [String] = []
        var open: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                guard let match = try declaration.firstMatch(in: String(line)), let name = match.output[1].substring.map(String.init) else { continue }
                if index > 0, lines[index - 1].trimmingCharacters(in: .whitespaces) == "@nonexhaustive" {
                    open.append(name)
                } else if !answers.contains(name) {
                    closed.append(name)
                }
            }
        }
        #expect(closed == [], "public enums that a new case would break apps' switches over: mark them @nonexhaustive")
        #expect(Set(open).isSuperset(of: ["SyncWarning", "Warning", "AutomaticSyncEvent", "Trigger", "Phase"]), "\(open)")
    }
}
