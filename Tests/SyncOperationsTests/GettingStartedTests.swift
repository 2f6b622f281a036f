import FileRemote
import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
import SyncCore
import TestSupport
import Testing

// BEGIN GettingStarted
/// Opens this device's notes database, synced with the other devices through a shared folder.
func openNotebook(database path: String, sharedFolder: String) async throws -> DocumentSyncManager {
    // 1. Your database, as your app has it (integer, text or composite keys, your own indexes,
    //    triggers and full-text search).
    let database = try DatabaseQueue(path: path)
    try await database.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
    }

    // 2. Where the devices meet: here a shared or mounted folder.
    let store = try FileRemoteStore(path: sharedFolder)

    // 3. What to sync. Everything else has a default: this device is named by an id kept in the
    //    database, and the application has one document.
    let configuration = SyncConfiguration(applicationID: "com.example.notes", tables: ["note"])

    // 4. The manager, one per database. From here on every change to `note` is captured, even
    //    offline; the first sync registers this device and the document (creating it if
    //    needed) and pushes everything captured. Rows `note` held before are synced too: the
    //    device that creates the document uploads them as a whole store, the others start from
    //    it and publish theirs (Conflicts.md, "Joining with rows of its own").
    return try await DocumentSyncManager.open(database: database, store: store, configuration: configuration)
}

/// 5. Syncs, and tells what happened.
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

// BEGIN OwnStore
/// Opens a user's notebook on storage of your own: any value conforming to `RemoteStore`
/// (ExtendingGuide.md says how to write one), with the settings a multi-user app changes.
func openNotebook(database: DatabaseQueue, store: some RemoteStore, user: String) async throws -> DocumentSyncManager {
    var configuration = SyncConfiguration(applicationID: "com.example.notes", tables: ["note"])
    configuration.documentID = "notebook-\(user)"                 // a document per user
    configuration.clientDescription = "\(user)'s laptop"          // shown in listings of clients
    configuration.automaticSync = AutomaticSyncConfiguration()     // sync by itself
    return try await DocumentSyncManager.open(database: database, store: store, configuration: configuration)
}
// END OwnStore

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
    /// A configuration for the notes table of `com.example.notes`, as device `client` if given.
    private static func configuration(client: String? = nil, document: String? = nil, tables: [String] = ["note"]) -> SyncConfiguration {
        var configuration = SyncConfiguration(applicationID: "com.example.notes", tables: tables)
        configuration.clientID = client
        configuration.documentID = document
        return configuration
    }

    @Test("the guide's example syncs two databases through a folder, integer keys and all")
    func exampleSyncsThroughAFolder() async throws {
        let devices = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let laptop = try await openNotebook(database: devices.url.appendingPathComponent("laptop.sqlite").path, sharedFolder: shared.url.path)
        let phone = try await openNotebook(database: devices.url.appendingPathComponent("phone.sqlite").path, sharedFolder: shared.url.path)
        try await laptop.localStore.writer.write { db in
            try db.execute(sql: "INSERT INTO note (title, body) VALUES ('Hello', 'from the laptop')")
        }
        #expect(try await syncNotebook(laptop).hasPrefix("applied 0 changes, pushed 1"))
        #expect(try await syncNotebook(phone).hasPrefix("applied 1 changes, pushed 0"))
        #expect(try await phone.localStore.writer.read { try String.fetchOne($0, sql: "SELECT body FROM note") } == "from the laptop")
        #expect(try await phone.localStore.writer.read { try Int64.fetchOne($0, sql: "SELECT id FROM note") } == 1, "the row keeps its integer id")
        #expect(laptop.documentID.rawValue == SyncConfiguration.defaultDocumentID)
        let clients = try await phone.application.clients(of: phone.documentID).map(\.clientID)
        #expect(Set(clients) == [laptop.application.device.clientID, phone.application.device.clientID])
    }

    /// The guide's first example needs at most three imports (GRDB, SyncCore, one backend) and
    /// five concepts to a first sync: the database, a store, a configuration, the manager, and
    /// `synchronize()`.
    @Test func theFirstExampleNeedsThreeImportsAndFiveConcepts() throws {
        let guide = try String(contentsOf: Self.guideURL, encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "\n## Bind a database and sync\n").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let imports = block.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { $0.dropFirst("import ".count) }
        #expect(imports.count <= 3 && Set(imports).isSubset(of: ["GRDB", "SyncCore", "FileRemote"]), "\(imports)")
        let code = block.split(separator: "\n").filter { !$0.hasPrefix("import ") }
            .map { $0.components(separatedBy: "//").first ?? "" }.joined(separator: "\n")
        let types = Set(code.matches(of: /\b[A-Z][a-z][A-Za-z]*\b/).map { String($0.output) })
            .subtracting(["String"])
        #expect(types == ["DatabaseQueue", "FileRemoteStore", "SyncConfiguration", "DocumentSyncManager"], "\(types.sorted())")
        #expect(code.contains(".synchronize()"))
    }

    @Test("the guide's second example opens a document on a store value of the app's own, syncing by itself", .timeLimit(.minutes(10)))
    func ownStoreExample() async throws {
        let shared = try TemporaryDirectory()
        let folder = try FileRemoteStore(root: shared.url)
        let database = try DatabaseQueue()
        try await database.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)") }
        let notebook = try await openNotebook(database: database, store: ReportingRemoteStore(base: folder, requestsPerCall: 1), user: "anna")
        let automatic = try #require(await notebook.automaticSync)
        var events = automatic.events.makeAsyncIterator()
        try await database.write { try $0.execute(sql: "INSERT INTO note (title) VALUES ('by itself')") }
        var pushed = false
        while !pushed, let event = await events.next() {
            if case .synced(let report, _) = event, report.pushedChanges == 1 { pushed = true }
        }
        #expect(pushed, "the automatic sync pushed the insert")
        #expect(notebook.documentID.rawValue == "notebook-anna")
        #expect(try await notebook.application.clients().map(\.device.description) == ["anna's laptop"])
        await notebook.close()
        while await events.next() != nil {}   // the events end: close() stopped the automatic sync
        #expect(await notebook.automaticSync == nil)
    }

    @Test("the guide's history example verifies, logs and restores")
    func historyExample() async throws {
        let devices = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let laptop = try await openNotebook(database: devices.url.appendingPathComponent("laptop.sqlite").path, sharedFolder: shared.url.path)
        try await laptop.localStore.writer.write { db in try db.execute(sql: "INSERT INTO note VALUES (1, 'Hello', 'first')") }
        _ = try await laptop.synchronize()
        let moment = Date()
        await ScriptedHistory.waitForNextMillisecond(after: moment)
        try await laptop.localStore.writer.write { db in try db.execute(sql: "UPDATE note SET body = 'second' WHERE id = 1") }
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
            let manager = try await DocumentSyncManager.open(
                database: database, remote: remote ?? shared.url, registry: registry,
                configuration: Self.configuration(client: client, document: document, tables: tables)
            )
            await manager.close()
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
                    database: database, remote: remote, registry: registry, configuration: Self.configuration(client: "laptop", tables: tables)
                )
            }
            #expect(try Data(contentsOf: file) == before, "\(tables) \(remote)")
        }
        #expect(FileManager.default.fileExists(atPath: file.path + "-journal") == false)
    }

    @Test("open takes a device name as the client: a valid identifier derived from it, the name kept as the description")
    func openTakesADeviceName() async throws {
        let shared = try TemporaryDirectory()
        func open(_ database: DatabaseQueue, client: String) async throws -> DocumentSyncManager {
            try await DocumentSyncManager.open(database: database, store: try FileRemoteStore(root: shared.url), configuration: Self.configuration(client: client))
        }
        var managers: [DocumentSyncManager] = []
        let names = ["Anna's iPhone (2)", "Anna-s-iPhone-2", "alice@laptop", "Ünïcødé 💻"]
        for name in names {
            let database = try DatabaseQueue()
            try await database.write { db in try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT)") }
            let first = try await open(database, client: name)
            _ = try await first.synchronize()
            await first.close()
            let manager = try await open(database, client: name)
            #expect(try await manager.synchronize().pushedChanges == 0, "the same name is the same client when opened again")
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

    @Test("without a client or document, a database is its own client at every launch, in the application's one document")
    func defaultIdentifiersAreStableAcrossLaunches() async throws {
        let folder = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("app.sqlite").path
        func launch() async throws -> (DocumentSyncManager, DatabaseQueue) {
            let database = try DatabaseQueue(path: path)
            try await database.write { try $0.execute(sql: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, title TEXT)") }
            return (try await DocumentSyncManager.open(database: database, store: try FileRemoteStore(root: shared.url), configuration: Self.configuration()), database)
        }
        let (first, firstDatabase) = try await launch()
        try await firstDatabase.write { try $0.execute(sql: "INSERT INTO note (title) VALUES ('one')") }
        _ = try await first.synchronize()
        let clientID = first.application.device.clientID
        #expect(clientID.rawValue == first.localStore.databaseID, "the database's own id")
        #expect(first.documentID.rawValue == "default")
        await first.close()
        try firstDatabase.close()

        let (second, secondDatabase) = try await launch()
        #expect(second.application.device.clientID == clientID, "the same client at the next launch")
        #expect(second.documentID == first.documentID)
        #expect(try await second.synchronize().pushedChanges == 0, "nothing published twice")
        #expect(try await second.application.clients().map(\.device.clientID) == [clientID], "no second client registered")
        await second.close()
        try secondDatabase.close()

        // An explicit document or client that differs from the binding is refused, as always.
        let database = try DatabaseQueue(path: path)
        await #expect { _ = try await DocumentSyncManager.open(database: database, store: try FileRemoteStore(root: shared.url), configuration: Self.configuration(client: "other")) } throws: {
            ($0 as? SyncError)?.code == .notRegistered
        }
    }

    @Test("the door opens a database written by the 2026-11-24 release with every default: its bound client and document, its unpushed edits")
    func openTakesAReleaseDatabaseAsItIs() async throws {
        let directory = try TemporaryDirectory()
        let remote = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("notes.sqlite")
        try FileManager.default.copyItem(at: SourceStructureTests.repository.appendingPathComponent("Tests/Fixtures/release-2026-11-24.sqlite"), to: file)
        let database = try DatabaseQueue(path: file.path)
        let boundClient = try await database.read { try String.fetchOne($0, sql: "SELECT value FROM rollingsync_cli_settings WHERE key = 'client-id'") }
        let manager = try await DocumentSyncManager.open(
            database: database, store: try FileRemoteStore(root: remote.url),
            configuration: SyncConfiguration(applicationID: "com.example.release", tables: ["notes"])
        )
        #expect(manager.application.device.clientID.rawValue == boundClient, "the client the database is bound to")
        #expect(manager.documentID.rawValue == "notebook", "the document it is bound to, not the default one")
        let report = try await manager.synchronize()
        #expect(report.pushedChanges == 2, "the release's unpushed edits went out")
        await manager.close()
    }

    @Test("one manager per database: a second one for the same file is refused until the first is closed or released")
    func oneManagerPerDatabase() async throws {
        let folder = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("app.sqlite").path
        let database = try DatabaseQueue(path: path)
        try await database.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)") }
        func open(_ writer: any DatabaseWriter) async throws -> DocumentSyncManager {
            try await DocumentSyncManager.open(database: writer, store: try FileRemoteStore(root: shared.url), configuration: Self.configuration())
        }
        let first = try await open(database)
        // Another connection to the same file (through a symbolic link, even) is the same database.
        let link = folder.url.appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: path)
        let other = try DatabaseQueue(path: link.path)
        await #expect { _ = try await open(other) } throws: { ($0 as? SyncError)?.code == .alreadyOpen }
        await #expect { _ = try await open(database) } throws: { ($0 as? SyncError)?.code == .alreadyOpen }
        #expect { _ = try DocumentSyncManager(application: first.application, documentID: first.documentID, localStore: first.localStore) } throws: {
            ($0 as? SyncError)?.code == .alreadyOpen
        }
        _ = try await first.synchronize()

        await first.close()
        await #expect { _ = try await first.synchronize() } throws: { ($0 as? SyncError)?.code == .closed }
        let second = try await open(other)
        _ = try await second.synchronize()

        // A manager released without close() releases the database too, even one that syncs by
        // itself (its automatic sync holds it weakly).
        await second.close()
        _ = try await open(database)
        var configuration = Self.configuration()
        configuration.automaticSync = AutomaticSyncConfiguration()
        var syncing: DocumentSyncManager? = try await DocumentSyncManager.open(
            database: database, store: try FileRemoteStore(root: shared.url), configuration: configuration
        )
        let automatic = try #require(await syncing?.automaticSync)
        var events = automatic.events.makeAsyncIterator()
        while let event = await events.next() {
            if case .synced(_, .start) = event { break }
        }
        syncing = nil
        while await events.next() != nil {}   // the events end: the manager was released, and its automatic sync with it
        _ = try await open(database)
        // Another database is not affected by any of this.
        let elsewhere = try DatabaseQueue()
        try await elsewhere.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)") }
        _ = try await open(elsewhere)
    }

    @Test("open gives a connection that fails at once on a lock a busy timeout, and leaves a configured one as it is")
    func openGivesABusyTimeout() async throws {
        let folder = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        func busyTimeout(_ busyMode: Database.BusyMode?, prepared: Int? = nil, configured: Duration?) async throws -> Int {
            var grdb = Configuration()
            if let busyMode { grdb.busyMode = busyMode }
            if let prepared {
                grdb.prepareDatabase { db in try db.execute(sql: "PRAGMA busy_timeout = \(prepared)") }
            }
            let database = try DatabaseQueue(path: folder.url.appendingPathComponent("\(UUID()).sqlite").path, configuration: grdb)
            try await database.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)") }
            var configuration = Self.configuration()
            configuration.busyTimeout = configured
            let manager = try await DocumentSyncManager.open(database: database, store: try FileRemoteStore(root: shared.url), configuration: configuration)
            await manager.close()
            return try await database.read { try Int.fetchOne($0, sql: "PRAGMA busy_timeout") ?? -1 }
        }
        #expect(try await busyTimeout(nil, configured: .seconds(30)) == 30_000, "GRDB's default, .immediateError")
        #expect(try await busyTimeout(nil, configured: .milliseconds(2_500)) == 2_500)
        #expect(try await busyTimeout(.timeout(5), configured: .seconds(30)) == 5_000, "the app's own timeout is kept")
        #expect(try await busyTimeout(nil, prepared: 7_000, configured: .seconds(30)) == 7_000, "so is one set in prepareDatabase")
        #expect(try await busyTimeout(nil, configured: nil) == 0, "nil leaves the connection as it is")
    }

    @Test("close() lets a sync asked for before it finish, is idempotent, then refuses work and frees the database", .timeLimit(.minutes(10)))
    func closeWaitsForASyncUnderWay() async throws {
        let gate = Gate()
        let store = GatedRemoteStore(base: InMemoryRemoteStore(), gate: gate)
        let database = try DatabaseQueue()
        try await database.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO note (title) VALUES ('one')") }
        let manager = try await DocumentSyncManager.open(database: database, store: store, configuration: Self.configuration())
        let sync = Task { try await manager.synchronize() }
        await gate.untilEntered()   // the sync is under way, held writing its last-sync marker
        let closes = Task {
            async let first: Void = manager.close()
            async let second: Void = manager.close()
            _ = await (first, second)
        }
        await Task.yield()
        await gate.open()
        await closes.value
        #expect(try await sync.value.pushedChanges == 1, "the sync asked for before close() ran whole")
        await #expect { _ = try await manager.synchronize() } throws: { ($0 as? SyncError)?.code == .closed }
        _ = try await DocumentSyncManager.open(database: database, store: InMemoryRemoteStore(), configuration: Self.configuration())
    }

    @Test("an AutomaticSync the app made ends when its manager is closed", .timeLimit(.minutes(10)))
    func appsAutomaticSyncEndsAtClose() async throws {
        let database = try DatabaseQueue()
        try await database.write { try $0.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)") }
        let manager = try await DocumentSyncManager.open(database: database, store: InMemoryRemoteStore(), configuration: Self.configuration())
        let automatic = AutomaticSync(manager: manager, configuration: AutomaticSyncConfiguration(pollInterval: .seconds(1), activePollInterval: .seconds(1)))
        var events = automatic.events.makeAsyncIterator()
        await automatic.start()
        _ = await events.next()   // its start sync
        await manager.close()
        var failures = 0
        while let event = await events.next() {   // ends at its next check, without reporting the closed manager as a failure
            if case .failed = event { failures += 1 }
        }
        #expect(failures == 0)
        await automatic.stop()
    }

    @Test("open publishes the rows of a table it registers for the first time, and only then")
    func openPublishesExistingRowsOnce() async throws {
        let shared = try TemporaryDirectory()
        let database = try DatabaseQueue()
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, title TEXT); INSERT INTO note VALUES ('n1', 'before RollingSync'), ('n2', 'also')")
        }
        func openAndSync() async throws -> Int {
            let manager = try await DocumentSyncManager.open(
                database: database, store: try FileRemoteStore(root: shared.url), configuration: Self.configuration(client: "laptop")
            )
            let pushed = try await manager.synchronize().pushedChanges
            await manager.close()
            return pushed
        }
        #expect(try await openAndSync() == 2)
        #expect(try await openAndSync() == 0, "an app opening again publishes nothing twice")
    }

    private static let guideURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Docs/GettingStarted.md")

    @Test("Docs/GettingStarted.md shows exactly the code compiled here", arguments: ["GettingStarted", "OwnStore", "SeveralDocuments", "History"])
    func guideMatchesThisFile(example name: String) throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let guide = try String(contentsOf: Self.guideURL, encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN \(name)\n"))
        let end = try #require(source.range(of: "// END \(name)"))
        let example = String(source[begin.upperBound..<end.lowerBound])
        #expect(guide.contains(example))
    }
}
