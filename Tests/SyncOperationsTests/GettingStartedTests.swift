import FileRemote
import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import TestSupport
import Testing

// BEGIN GettingStarted
/// Opens the notes database of this device and binds it to the shared notebook.
func openNotebook(database path: String, syncFolder: URL, device: String) async throws -> DocumentSyncManager {
    // 1. The application's own database and tables. Synced tables need a primary key whose
    //    values the app assigns, globally unique (a UUID), or a composite key (a join table's),
    //    so devices never pick the same key.
    let database = try DatabaseQueue(path: path)
    try await database.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS note (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT)")
    }

    // 2. The backends this app links, registered once: here shared folders (file URLs).
    RemoteStoreRegistry.shared.register(FileRemoteStore.self)

    // 3. The document. From here on every change to `note` is captured, even offline; the first
    //    sync registers this device and the document (creating it if needed) and pushes
    //    everything captured.
    return try await DocumentSyncManager.open(
        database: database,
        remote: syncFolder,
        application: "com.example.notes",
        document: "notebook",
        client: device,
        tables: ["note"],
        clientDescription: "\(device)'s notes",
        documentDescription: "Shared notebook"
    )
}

/// Syncs and tells what happened.
func syncNotebook(_ notebook: DocumentSyncManager) async throws -> String {
    let report = try await notebook.synchronize()
    return "applied \(report.appliedChanges) changes, pushed \(report.pushedChanges), "
        + "\(report.conflicts.count) conflicts, \(report.requests) requests"
}
// END GettingStarted

// BEGIN History
/// Checks the notebook's remote copy, prints what changed since `since`, and writes the notebook
/// as it was at `moment` to `file`.
func inspectHistory(of notebook: DocumentSyncManager, since: Date, moment: Date, into file: URL) async throws -> VerificationReport {
    // Check the remote copy: what is wrong and where; nothing changes unless repair is asked.
    let check = try await notebook.verifyRemote(VerificationOptions(deep: true))
    for problem in check.problems { print(problem.kind, problem.path, problem.detail) }

    // Who changed what, oldest first; names decide time and client filters, each set is read once.
    let log = try await notebook.history(matching: HistoryQuery(since: since, table: "note", includeRows: true))
    for entry in log.entries { print(entry.time, entry.client, entry.tables, entry.appliedHere ?? false) }

    // The document as it was at a moment, into a new file (the local database is untouched).
    try await notebook.restore(.at(moment), to: file)
    return check
}
// END History

// BEGIN SeveralDocuments
/// Binds two databases of this device to two documents of one application, sharing one
/// application manager (one registration of the device, one connection to the server).
func openLibrary(notes: DatabaseQueue, tags: DatabaseQueue, store: any RemoteStore, device: String) throws -> [DocumentSyncManager] {
    let application = ApplicationSyncManager(
        store: store,
        applicationID: try SyncIdentifier("com.example.notes"),
        device: DeviceInfo(clientID: SyncIdentifier(deriving: device), description: "\(device)'s notes")
    )
    let notesStore = try LocalStore(writer: notes)
    try notesStore.register(table: "note")
    let tagsStore = try LocalStore(writer: tags)
    try tagsStore.register(table: "tag")
    return [
        try DocumentSyncManager(application: application, documentID: try SyncIdentifier("notebook"), localStore: notesStore),
        try DocumentSyncManager(application: application, documentID: try SyncIdentifier("tags"), localStore: tagsStore),
    ]
}
// END SeveralDocuments

@Suite("Getting started")
struct GettingStartedTests {
    @Test("the guide's example syncs two databases through a folder")
    func exampleSyncsThroughAFolder() async throws {
        let devices = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let laptop = try await openNotebook(database: devices.url.appendingPathComponent("laptop.sqlite").path, syncFolder: shared.url, device: "laptop")
        let phone = try await openNotebook(database: devices.url.appendingPathComponent("phone.sqlite").path, syncFolder: shared.url, device: "phone")
        try await laptop.localStore.writer.write { db in
            try db.execute(sql: "INSERT INTO note VALUES ('6F1C0E52-0D37-4E0B-9D1E-3B7A1C8F2A10', 'Hello', 'from the laptop')")
        }
        #expect(try await syncNotebook(laptop).hasPrefix("applied 0 changes, pushed 1"))
        #expect(try await syncNotebook(phone).hasPrefix("applied 1 changes, pushed 0"))
        let body = try await phone.localStore.writer.read { db in try String.fetchOne(db, sql: "SELECT body FROM note") }
        #expect(body == "from the laptop")
    }

    @Test("the guide's history example verifies, logs and restores")
    func historyExample() async throws {
        let devices = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let laptop = try await openNotebook(database: devices.url.appendingPathComponent("laptop.sqlite").path, syncFolder: shared.url, device: "laptop")
        try await laptop.localStore.writer.write { db in try db.execute(sql: "INSERT INTO note VALUES ('n1', 'Hello', 'first')") }
        _ = try await laptop.synchronize()
        let moment = Date()
        await ScriptedHistory.waitForNextMillisecond(after: moment)
        try await laptop.localStore.writer.write { db in try db.execute(sql: "UPDATE note SET body = 'second' WHERE id = 'n1'") }
        _ = try await laptop.synchronize()
        let file = devices.url.appendingPathComponent("then.sqlite")
        let check = try await inspectHistory(of: laptop, since: .distantPast, moment: moment, into: file)
        #expect(check.isClean && check.changeSetsChecked == 2)
        let then = try DatabaseQueue(path: file.path)
        #expect(try await then.read { db in try String.fetchOne(db, sql: "SELECT body FROM note") } == "first")
        try then.close()
    }

    @Test("the explicit form binds two documents of one application, and each syncs on its own")
    func severalDocumentsShareOneApplication() async throws {
        let shared = try TemporaryDirectory()
        var libraries: [[DocumentSyncManager]] = []
        for device in ["laptop", "phone"] {
            let notes = try DatabaseQueue()
            let tags = try DatabaseQueue()
            try await notes.write { try $0.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT)") }
            try await tags.write { try $0.execute(sql: "CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, label TEXT)") }
            libraries.append(try openLibrary(notes: notes, tags: tags, store: try FileRemoteStore(root: shared.url), device: device))
        }
        try await libraries[0][0].localStore.writer.write { try $0.execute(sql: "INSERT INTO note VALUES ('n1', 'Hello')") }
        try await libraries[0][1].localStore.writer.write { try $0.execute(sql: "INSERT INTO tag VALUES ('t1', 'urgent')") }
        for library in libraries {
            for document in library { _ = try await document.synchronize() }
        }
        #expect(try await libraries[1][0].localStore.writer.read { try String.fetchOne($0, sql: "SELECT title FROM note") } == "Hello")
        #expect(try await libraries[1][1].localStore.writer.read { try String.fetchOne($0, sql: "SELECT label FROM tag") } == "urgent")
        let documents = try await libraries[1][0].application.documents().map(\.documentID.rawValue)
        #expect(documents == ["notebook", "tags"])
    }

    @Test("open refuses a bad identifier, an unknown scheme, a table it cannot sync and another document, changing as little as it can")
    func openRefusesBadInput() async throws {
        let shared = try TemporaryDirectory()
        let registry = RemoteStoreRegistry()
        registry.register(FileRemoteStore.self)
        let database = try DatabaseQueue()
        try await database.write { db in
            try db.execute(sql: """
                CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT); CREATE VIEW counter AS SELECT count(*) AS n FROM note;
                CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, label TEXT)
                """)
        }
        func open(document: String = "notebook", client: String = "laptop", tables: [String] = ["note"], remote: URL? = nil) async throws {
            _ = try await DocumentSyncManager.open(
                database: database, remote: remote ?? shared.url, registry: registry,
                application: "com.example.notes", document: document, client: client, tables: tables
            )
        }
        func names(_ type: String) async throws -> [String] {
            try await database.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = ? ORDER BY name", arguments: [type]) }
        }
        let tablesBefore = try await names("table")

        await #expect { try await open(document: "../notebook") } throws: { ($0 as? SyncError)?.code == .invalidIdentifier }
        await #expect { try await open(remote: URL(string: "gopher://example.com/notes")) } throws: { error in
            (error as? RemoteStoreError)?.code == .unsupported && "\(error)".contains("file")
        }
        #expect(try await names("table") == tablesBefore, "nothing changed before the store could be opened")

        await #expect { try await open(tables: ["note", "counter"]) } throws: { error in
            (error as? LocalStoreError)?.code == .unsupportedTable && (error as? LocalStoreError)?.table == "counter"
        }
        #expect(try await names("trigger").isEmpty, "note was not registered either")
        #expect(try await names("table") == tablesBefore, "a table that cannot be synced leaves no RollingSync table behind")

        try await open()
        let noteTriggers = try await names("trigger")
        #expect(!noteTriggers.isEmpty)
        await #expect { try await open(document: "other", tables: ["note", "tag"]) } throws: { ($0 as? SyncError)?.code == .notRegistered }
        #expect(try await names("trigger") == noteTriggers, "tag was not registered for a document this database does not sync")
    }

    @Test("a refused open leaves the database file byte for byte as it was")
    func refusedOpenLeavesTheFileAsItWas() async throws {
        let folder = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let registry = RemoteStoreRegistry()
        registry.register(FileRemoteStore.self)
        let file = folder.url.appendingPathComponent("app.sqlite")
        let database = try DatabaseQueue(path: file.path)
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT); CREATE VIEW counter AS SELECT count(*) AS n FROM note")
        }
        let before = try Data(contentsOf: file)
        for (tables, remote) in [(["note", "counter"], shared.url), (["note"], URL(string: "gopher://example.com/notes")!)] {
            await #expect(throws: (any Error).self) {
                _ = try await DocumentSyncManager.open(
                    database: database, remote: remote, registry: registry,
                    application: "com.example.notes", document: "notebook", client: "laptop", tables: tables
                )
            }
            #expect(try Data(contentsOf: file) == before, "\(tables) \(remote)")
        }
        #expect(FileManager.default.fileExists(atPath: file.path + "-journal") == false)
    }

    @Test("open takes a device name as the client: a valid identifier derived from it, the name kept as the description")
    func openTakesADeviceName() async throws {
        let shared = try TemporaryDirectory()
        let registry = RemoteStoreRegistry()
        registry.register(FileRemoteStore.self)
        func open(_ database: DatabaseQueue, client: String) async throws -> DocumentSyncManager {
            try await DocumentSyncManager.open(
                database: database, remote: shared.url, registry: registry,
                application: "com.example.notes", document: "notebook", client: client, tables: ["note"]
            )
        }
        var managers: [DocumentSyncManager] = []
        let names = ["Anna's iPhone (2)", "Anna-s-iPhone-2", "alice@laptop", "Ünïcødé 💻"]
        for name in names {
            let database = try DatabaseQueue()
            try await database.write { db in try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT)") }
            let manager = try await open(database, client: name)
            _ = try await manager.synchronize()
            #expect(try await open(database, client: name).synchronize().pushedChanges == 0, "the same name is the same client when opened again")
            managers.append(manager)
        }
        let clients = try await managers[0].application.clients()
        #expect(Set(clients.map(\.device.description)) == Set(names), "\(clients.map(\.device))")
        #expect(Set(clients.map(\.device.clientID)).count == names.count, "different names stay different clients")
        #expect(clients.contains { $0.device.clientID.rawValue == "Anna-s-iPhone-2" }, "a valid identifier is used as it is")
        #expect(SyncIdentifier(deriving: "Anna's iPhone (2)").rawValue.hasPrefix("Anna-s-iPhone-2-"))
        #expect(SyncIdentifier(deriving: "../..").rawValue.hasPrefix("client-"))
        #expect(SyncIdentifier(deriving: String(repeating: "é", count: 300)).rawValue.utf8.count <= SyncIdentifier.maximumLength)
    }

    @Test("open publishes the rows of a table it registers for the first time, and only then")
    func openPublishesExistingRowsOnce() async throws {
        let shared = try TemporaryDirectory()
        let registry = RemoteStoreRegistry()
        registry.register(FileRemoteStore.self)
        let database = try DatabaseQueue()
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT); INSERT INTO note VALUES ('n1', 'before RollingSync'), ('n2', 'also')")
        }
        func open() async throws -> DocumentSyncManager {
            try await DocumentSyncManager.open(
                database: database, remote: shared.url, registry: registry,
                application: "com.example.notes", document: "notebook", client: "laptop", tables: ["note"]
            )
        }
        #expect(try await open().synchronize().pushedChanges == 2)
        #expect(try await open().synchronize().pushedChanges == 0, "an app opening again publishes nothing twice")
    }

    @Test("Docs/GettingStarted.md shows exactly the code compiled here", arguments: ["GettingStarted", "SeveralDocuments", "History"])
    func guideMatchesThisFile(example name: String) throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let guideURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/GettingStarted.md")
        let guide = try String(contentsOf: guideURL, encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN \(name)\n"))
        let end = try #require(source.range(of: "// END \(name)"))
        let example = String(source[begin.upperBound..<end.lowerBound])
        #expect(guide.contains(example))
    }
}
