import FileRemote
import Foundation
import GRDB
import SyncCore
import TestSupport
import Testing

// BEGIN GettingStarted
/// Opens the notes database of this device and binds it to the shared notebook.
func openNotebook(database path: String, syncFolder: URL, device: String) throws -> DocumentSyncManager {
    // 1. The application's own database and tables. Synced tables need a globally unique
    //    TEXT (or BLOB) primary key, such as a UUID, so devices never pick the same key.
    let database = try DatabaseQueue(path: path)
    try database.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS note (id TEXT PRIMARY KEY NOT NULL, title TEXT, body TEXT)")
    }

    // 2. RollingSync's local store, in the same database: register every synced table.
    let localStore = try LocalStore(writer: database)
    try localStore.register(table: "note")

    // 3. Where the data meets other devices: here a shared folder.
    let remote = try FileRemoteStore(root: syncFolder)
    let application = ApplicationSyncManager(
        store: remote,
        applicationID: try SyncIdentifier("com.example.notes"),
        device: DeviceInfo(clientID: try SyncIdentifier(device), description: "\(device)'s notes", registeredAt: Date())
    )

    // 4. The document. From here on every change to `note` is captured, even offline; the first
    //    sync registers the document (creating it if needed) and pushes everything captured.
    return try DocumentSyncManager(
        application: application,
        documentID: try SyncIdentifier("notebook"),
        localStore: localStore,
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

@Suite("Getting started")
struct GettingStartedTests {
    @Test("the guide's example syncs two databases through a folder")
    func exampleSyncsThroughAFolder() async throws {
        let devices = try TemporaryDirectory()
        let shared = try TemporaryDirectory()
        let laptop = try openNotebook(database: devices.url.appendingPathComponent("laptop.sqlite").path, syncFolder: shared.url, device: "laptop")
        let phone = try openNotebook(database: devices.url.appendingPathComponent("phone.sqlite").path, syncFolder: shared.url, device: "phone")
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
        let laptop = try openNotebook(database: devices.url.appendingPathComponent("laptop.sqlite").path, syncFolder: shared.url, device: "laptop")
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

    @Test("Docs/GettingStarted.md shows exactly the code compiled here", arguments: ["GettingStarted", "History"])
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
