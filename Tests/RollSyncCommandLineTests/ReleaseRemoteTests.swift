import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Remotes written by earlier releases")
struct ReleaseRemoteTests {
    /// Tests/Fixtures/release-2026-11-28-encrypted-remote: the folder remote that `rollsync` of the
    /// 2026-11-28 release (encrypting with swift-crypto) wrote, password "correct horse": a change
    /// set, a whole store of three notes (two of them from before `init`), then a change set
    /// deleting one and adding a fourth.
    static let encryptedRemote = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/release-2026-11-28-encrypted-remote")

    @Test("a remote the 2026-11-28 release encrypted: a wrong password is refused, the right one installs its whole store and change set")
    func encryptedRemoteOfTheLastRelease() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        try FileManager.default.copyItem(atPath: Self.encryptedRemote.path, toPath: remote)
        // The empty folders the release created, which git does not keep.
        for folder in ["Documents/default/DeletedClients", "Information/DeletedDocuments", "Information/DeletedClients"] {
            try FileManager.default.createDirectory(atPath: "\(remote)/com.example.fixture/\(folder)", withIntermediateDirectories: true)
        }
        let database = workspace.path("joining.sqlite")
        try workspace.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, body BLOB)", in: database)
        let arguments = ["init", "--db", database, "--remote", remote, "--table", "notes", "--app", "com.example.fixture"]

        let wrong = try await RollsyncProcess.run(arguments, environment: ["ROLLSYNC_PASSWORD": "correct battery"])
        #expect(wrong.status == 3, "\(wrong.standardError)")
        #expect(wrong.standardError.contains("password does not unlock"), "\(wrong.standardError)")
        let joined = try await RollsyncProcess.run(arguments, environment: ["ROLLSYNC_PASSWORD": "correct horse"])
        #expect(joined.status == 0, "\(joined.standardError)")
        // As the README says to start a client from the rows that predate `init`.
        let pulled = try await RollsyncProcess.run(["pull-store", "--db", database])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        let rows = try await DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: "SELECT id, title, hex(body) AS body FROM notes ORDER BY id").map {
                "\($0["id"] as String)|\($0["title"] as String)|\($0["body"] as String? ?? "")"
            }
        }
        #expect(rows == ["n1|first note, edited|00FF10", "n3|after the first sync|0102", "n4|only in a change set|CAFE"])
    }
}
