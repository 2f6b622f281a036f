import Foundation
import TestSupport
import Testing

/// `init`, `sync`, `status` and the whole-store commands between two databases through a folder.
@Suite("rollsync through a folder")
struct FolderSyncTests {
    @Test("init + sync carries inserts and updates both ways")
    func initAndSync() async throws {
        let workspace = try Workspace()
        let (_, first, second) = try await workspace.makeInitialisedPair()

        try workspace.execute("INSERT INTO notes VALUES ('a', 'from first')", in: first)
        #expect(try await RollsyncProcess.run(["sync", "--db", first]).status == 0)
        let pulled = try await RollsyncProcess.run(["sync", "--db", second, "--json"])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(try pulled.jsonObjects().first?["appliedChanges"] as? Int == 1)
        #expect(try workspace.notes(in: second) == ["a=from first"])

        try workspace.execute("UPDATE notes SET title = 'edited on second' WHERE id = 'a'", in: second)
        try workspace.execute("INSERT INTO notes VALUES ('b', 'also second')", in: second)
        let status = try await RollsyncProcess.run(["status", "--db", second, "--json"])
        let summary = try #require(try status.jsonObjects().first)
        #expect(summary["pendingChanges"] as? Int == 2)
        #expect((summary["clients"] as? [String])?.count == 2)

        #expect(try await RollsyncProcess.run(["sync", "--db", second]).status == 0)
        #expect(try await RollsyncProcess.run(["sync", "--db", first]).status == 0)
        #expect(try workspace.notes(in: first) == ["a=edited on second", "b=also second"])
        #expect(try workspace.notes(in: first) == workspace.notes(in: second))
    }

    @Test("push-store and pull-store bring rows that existed before init to a new client")
    func wholeStoreBootstrap() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let first = try workspace.makeNotesDatabase("first.sqlite", rows: [("x", "old row"), ("y", "another old row")])
        let second = try workspace.makeNotesDatabase("second.sqlite")
        #expect(try await RollsyncProcess.run(["init", "--db", first, "--remote", remote, "--table", "notes"]).status == 0)
        let pushed = try await RollsyncProcess.run(["push-store", "--db", first, "--json"])
        #expect(pushed.status == 0, "\(pushed.standardError)")
        #expect(try await RollsyncProcess.run(["init", "--db", second, "--remote", remote, "--table", "notes"]).status == 0)
        let pulled = try await RollsyncProcess.run(["pull-store", "--db", second, "--json"])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(try workspace.notes(in: second) == ["x=old row", "y=another old row"])
        #expect(!pushed.standardError.contains("…") && !pulled.standardError.contains("…"), "--json prints no progress")

        let documents = try await RollsyncProcess.run(["documents", "--db", second, "--json"])
        #expect(try documents.jsonObjects().map { $0["document"] as? String } == ["default"])
        let clients = try await RollsyncProcess.run(["clients", "--db", second, "--json"])
        #expect(try clients.jsonObjects().count == 2)
    }

    @Test("without push-store or pull-store: the creator's first sync uploads its rows, a client joining with rows of its own keeps them; a shared key takes the document's version")
    func joiningWithRowsOfItsOwn() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let first = try workspace.makeNotesDatabase("first.sqlite", rows: [("x", "old row"), ("s", "first's version")])
        let second = try workspace.makeNotesDatabase("second.sqlite", rows: [("z", "second's own"), ("s", "second's version")])
        let created = try await RollsyncProcess.run(["init", "--db", first, "--remote", remote, "--table", "notes"])
        #expect(created.standardOutput.contains("Its 2 existing rows are not changes: its first sync uploads them as a whole store"), "\(created.standardOutput)")
        let creatorSync = try await RollsyncProcess.run(["sync", "--db", first])
        #expect(creatorSync.standardOutput.contains("uploaded whole store"), "\(creatorSync.standardOutput)")
        let joined = try await RollsyncProcess.run(["init", "--db", second, "--remote", remote, "--table", "notes"])
        #expect(joined.standardOutput.contains("Its 2 existing rows are published by its first sync"), "\(joined.standardOutput)")
        // Written by another connection after init: a change made since the join, which wins.
        try workspace.execute("INSERT INTO notes VALUES ('w', 'written after init'); UPDATE notes SET title = 'edited after init' WHERE id = 'z'", in: second)

        let firstSync = try await RollsyncProcess.run(["sync", "--db", second])
        #expect(firstSync.status == 0, "\(firstSync.standardError)")
        #expect(firstSync.standardOutput.contains("installed whole store"), "\(firstSync.standardOutput)")
        #expect(firstSync.standardOutput.contains("notes \"s\", held here before this database joined the document, took the document's version"))
        for database in [first, second, first] {
            #expect(try await RollsyncProcess.run(["sync", "--db", database]).status == 0)
        }
        let expected = ["s=first's version", "w=written after init", "x=old row", "z=edited after init"]
        #expect(try workspace.notes(in: first) == expected)
        #expect(try workspace.notes(in: second) == expected)
        for database in [first, second] {
            let quiet = try await RollsyncProcess.run(["sync", "--db", database, "--json"])
            #expect(try quiet.jsonObjects().first?["pushedChanges"] as? Int == 0, "a quiet system stops pushing")
        }
    }

    @Test("push-store and pull-store print one progress line per phase when standard error is not a terminal")
    func wholeStoreProgressLines() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let first = try workspace.makeNotesDatabase("first.sqlite", rows: [("x", "old row")])
        let second = try workspace.makeNotesDatabase("second.sqlite")
        #expect(try await RollsyncProcess.run(["init", "--db", first, "--remote", remote, "--table", "notes"]).status == 0)
        #expect(try await RollsyncProcess.run(["init", "--db", second, "--remote", remote, "--table", "notes"]).status == 0)

        let pushed = try await RollsyncProcess.run(["push-store", "--db", first])
        #expect(pushed.status == 0, "\(pushed.standardError)")
        let pushLines = pushed.standardError.split(separator: "\n").map(String.init)
        #expect(pushLines.suffix(3) == ["snapshotting…", "compressing…", "uploadingStore…"], "\(pushed.standardError)")

        let pulled = try await RollsyncProcess.run(["pull-store", "--db", second])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        let pullLines = pulled.standardError.split(separator: "\n").map(String.init)
        let storeLines = pullLines.filter { ["downloadingStore…", "decompressing…", "verifying…", "installing…"].contains($0) }
        #expect(storeLines == ["downloadingStore…", "decompressing…", "verifying…", "installing…"], "\(pulled.standardError)")
        #expect(!pulled.standardError.contains("\u{1B}"), "no terminal escape codes in plain lines")
        #expect(try workspace.notes(in: second) == ["x=old row"])
    }

    @Test("an encrypted remote: joining needs the password, and change-password switches it")
    func encryption() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let first = try workspace.makeNotesDatabase("first.sqlite")
        let second = try workspace.makeNotesDatabase("second.sqlite")
        let third = try workspace.makeNotesDatabase("third.sqlite")
        let created = try await RollsyncProcess.run(
            ["init", "--db", first, "--remote", remote, "--table", "notes", "--encrypt", "--json"],
            environment: ["ROLLSYNC_PASSWORD": "correct horse"]
        )
        #expect(created.status == 0, "\(created.standardError)")
        #expect(try created.jsonObjects().first?["encrypted"] as? Bool == true)
        try workspace.execute("INSERT INTO notes VALUES ('s', 'secret')", in: first)
        #expect(try await RollsyncProcess.run(["sync", "--db", first], environment: ["ROLLSYNC_PASSWORD": nil]).status == 0, "the key is cached")

        let joined = try await RollsyncProcess.run(
            ["init", "--db", second, "--remote", remote, "--table", "notes"], environment: ["ROLLSYNC_PASSWORD": "correct horse"]
        )
        #expect(joined.status == 0, "\(joined.standardError)")
        #expect(try await RollsyncProcess.run(["sync", "--db", second]).status == 0)
        #expect(try workspace.notes(in: second) == ["s=secret"])

        let changed = try await RollsyncProcess.run(
            ["change-password", "--db", first], environment: ["ROLLSYNC_PASSWORD": "correct horse", "ROLLSYNC_NEW_PASSWORD": "battery staple"]
        )
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(!changed.standardOutput.contains("battery") && !changed.standardError.contains("battery"), "secrets are never printed")
        let withOld = try await RollsyncProcess.run(
            ["init", "--db", third, "--remote", remote, "--table", "notes"], environment: ["ROLLSYNC_PASSWORD": "correct horse"]
        )
        #expect(withOld.status == 3)
        let withNew = try await RollsyncProcess.run(
            ["init", "--db", third, "--remote", remote, "--table", "notes"], environment: ["ROLLSYNC_PASSWORD": "battery staple"]
        )
        #expect(withNew.status == 0, "\(withNew.standardError)")
    }
}
