import Foundation
import Logging
import Synchronization
import SyncCore
import Testing

/// A log handler that keeps every record, for tests.
final class CapturingLogHandler: LogHandler, Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]

        /// The record as one line, message and metadata.
        var line: String { ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
    }

    private let records = Mutex<[Record]>([])
    private let storedMetadata = Mutex<Logger.Metadata>([:])
    private let storedLevel = Mutex<Logger.Level>(.trace)

    var logLevel: Logger.Level {
        get { storedLevel.withLock { $0 } }
        set { storedLevel.withLock { $0 = newValue } }
    }

    var metadata: Logger.Metadata {
        get { storedMetadata.withLock { $0 } }
        set { storedMetadata.withLock { $0 = newValue } }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let record = Record(
            level: event.level, message: "\(event.message)",
            metadata: (event.metadata ?? [:]).mapValues { "\($0)" }
        )
        records.withLock { $0.append(record) }
    }

    /// Everything logged so far.
    var captured: [Record] { records.withLock { $0 } }
}

/// What the library logs through the `Logger` an application gives it.
@Suite("Sync logging")
struct SyncLoggingTests {
    @Test("a sync logs its phases, requests, applied sets, conflict decisions and rules, never values")
    func syncEvents() async throws {
        let remote = try TestRemote(.memory)
        let handler = CapturingLogHandler()
        let logger = Logger(label: "test", factory: { _ in handler })
        let schema = """
            CREATE TABLE folder (id TEXT PRIMARY KEY NOT NULL, name TEXT);
            CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folder(id) ON DELETE CASCADE, title TEXT);
            """
        let anna = try TestClient("anna", remote: remote.store, schema: schema, tables: ["folder", "note"], logger: logger)
        let ben = try TestClient("ben", remote: remote.store, schema: schema, tables: ["folder", "note"])
        try anna.execute("INSERT INTO folder VALUES ('f', 'secret folder name'); INSERT INTO note VALUES ('n', 'f', 'v0')")
        try await anna.sync()
        try await ben.sync()
        // A conflict on note.title …
        try anna.execute("UPDATE note SET title = 'value-from-anna' WHERE id = 'n'")
        try ben.execute("UPDATE note SET title = 'value-from-ben' WHERE id = 'n'")
        try await ben.sync()
        try await anna.sync()
        // … and the reference rule: Ben files a note into the folder Anna deleted meanwhile.
        try anna.execute("DELETE FROM folder WHERE id = 'f'")
        try ben.execute("INSERT INTO note VALUES ('m', 'f', 'filed by ben')")
        try await ben.sync()
        try await anna.sync()

        let lines = handler.captured.map(\.line)
        for event in ["sync started", "listed change sets", "remote request", "applied change set", "conflict decided", "pushed change set", "sync finished"] {
            #expect(lines.contains { $0.hasPrefix(event) }, "no '\(event)' in the log")
        }
        #expect(lines.contains { $0.contains("primitive=upload") && $0.contains("bytes=") && $0.contains("ms=") })
        #expect(lines.contains { $0.hasPrefix("conflict decided") && $0.contains("column=title") && $0.contains("resolution=") })
        #expect(handler.captured.contains { $0.level == .notice && $0.message.hasPrefix("rule applied") }, "the cascade rule is a notice")
        for value in ["secret folder name", "value-from-anna", "value-from-ben", "filed by ben"] {
            #expect(!lines.contains { $0.contains(value) }, "row values are never logged")
        }
    }
}
