import Foundation
import TestSupport
import Testing

/// `rollsync log`, `verify`, `restore` and `--keep-days`, run as separate processes on databases
/// that `sqlite3`-style SQL writes, through a folder.
@Suite("rollsync log, verify and restore")
struct HistoryCommandTests {
    /// Two configured databases that synced a short history: `a` inserted, then (a millisecond
    /// later) `a` was edited and `b` inserted; `moment` lies between the two.
    private struct History {
        var workspace: Workspace
        var remote: String
        var first: String
        var second: String
        var moment: String
    }

    private static func makeHistory() async throws -> History {
        let workspace = try Workspace()
        let (remote, first, second) = try await workspace.makeInitialisedPair()
        try workspace.execute("INSERT INTO notes VALUES ('a', 'first title')", in: first)
        #expect(try await RollsyncProcess.run(["sync", "--db", first]).status == 0)
        let moment = Date()
        while Int64(Date().timeIntervalSince1970 * 1000) <= Int64(moment.timeIntervalSince1970 * 1000) {
            await Task.yield()
        }
        try workspace.execute("UPDATE notes SET title = 'second title' WHERE id = 'a'; INSERT INTO notes VALUES ('b', 'bee')", in: first)
        #expect(try await RollsyncProcess.run(["sync", "--db", first]).status == 0)
        #expect(try await RollsyncProcess.run(["sync", "--db", second]).status == 0)
        return History(
            workspace: workspace, remote: remote, first: first, second: second,
            moment: moment.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        )
    }

    @Test("log lists each change set with its counts and rows, oldest first, and marks those applied here")
    func log() async throws {
        let history = try await Self.makeHistory()
        let outcome = try await RollsyncProcess.run(["log", "--db", history.second, "--rows", "--json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let entries = try #require(try outcome.jsonObjects().first?["history"] as? [String: Any])["entries"] as? [[String: Any]]
        let tables = entries?.map { ($0["tables"] as? [[String: Any]])?.map { "\($0["table"]!) \($0["inserted"]!)/\($0["updated"]!)/\($0["deleted"]!)" } }
        #expect(tables == [["notes 1/0/0"], ["notes 1/1/0"]])
        #expect(entries?.allSatisfy { $0["appliedHere"] as? Bool == true } == true)
        let rows = entries?.last?["rows"] as? [[String: Any]]
        #expect(Set(rows?.map { "\($0["operation"]!) \($0["key"]!)" } ?? []) == ["update a", "insert b"])

        let since = try await RollsyncProcess.run(["log", "--db", history.second, "--since", history.moment, "--key", "b"])
        #expect(since.status == 0, "\(since.standardError)")
        #expect(since.standardOutput.contains("notes: 1 inserted, 0 updated, 0 deleted"), "\(since.standardOutput)")
        #expect(!since.standardOutput.contains("1 inserted, 1 updated"), "the key filter limits the counts to the row")
        let bad = try await RollsyncProcess.run(["log", "--db", history.second, "--since", "yesterday"])
        #expect(bad.status == 64 || bad.status == 1, "\(bad.standardError)")
    }

    @Test("restore --at and --before-set write the data as it was into a new file, never over an existing one")
    func restore() async throws {
        let history = try await Self.makeHistory()
        let restored = history.workspace.path("restored.sqlite")
        let outcome = try await RollsyncProcess.run(["restore", "--db", history.second, "--at", history.moment, "--to", restored, "--json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try history.workspace.notes(in: restored) == ["a=first title"])
        #expect(try history.workspace.notes(in: history.second) == ["a=second title", "b=bee"], "the configured database is unchanged")
        let unbound = try await RollsyncProcess.run(["sync", "--db", restored])
        #expect(unbound.status == 4 && unbound.standardError.contains("not set up"), "a restored file is no client: \(unbound.standardError)")

        let log = try await RollsyncProcess.run(["log", "--db", history.first, "--json"])
        let entries = try #require(try log.jsonObjects().first?["history"] as? [String: Any])["entries"] as? [[String: Any]]
        let lastSet = try #require(entries?.last?["setID"] as? String)
        let before = history.workspace.path("before.sqlite")
        #expect(try await RollsyncProcess.run(["restore", "--db", history.first, "--before-set", lastSet, "--to", before]).status == 0)
        #expect(try history.workspace.notes(in: before) == ["a=first title"])

        let again = try await RollsyncProcess.run(["restore", "--db", history.first, "--at", history.moment, "--to", before])
        #expect(again.status == 4 && again.standardError.contains("exists already"), "\(again.standardError)")
        let unknown = try await RollsyncProcess.run(["restore", "--db", history.first, "--before-set", "nope", "--to", history.workspace.path("x.sqlite")])
        #expect(unknown.status == 1 && unknown.standardError.contains("no change set nope"), "\(unknown.standardError)")
        let both = try await RollsyncProcess.run(["restore", "--db", history.first, "--to", history.workspace.path("y.sqlite")])
        #expect(both.status != 0 && both.standardError.contains("--at"))
    }

    @Test("verify exits 0 on a sound remote and 6 with the problems listed once a change set is damaged")
    func verify() async throws {
        let history = try await Self.makeHistory()
        let clean = try await RollsyncProcess.run(["verify", "--db", history.first, "--deep", "--json"])
        #expect(clean.status == 0, "\(clean.standardError)")
        let report = try #require(try clean.jsonObjects().first?["report"] as? [String: Any])
        #expect((report["problems"] as? [Any])?.isEmpty == true && report["changeSetsChecked"] as? Int == 2)

        let sets = try #require(FileManager.default.enumerator(atPath: history.remote)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".syncchg") }.first)
        let damaged = URL(fileURLWithPath: history.remote).appendingPathComponent(sets)
        var bytes = try Data(contentsOf: damaged)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: damaged)
        let shallow = try await RollsyncProcess.run(["verify", "--db", history.first])
        #expect(shallow.status == 0, "names and sizes cannot see a flipped byte: \(shallow.standardOutput)")
        let deep = try await RollsyncProcess.run(["verify", "--db", history.first, "--deep"])
        #expect(deep.status == 6, "\(deep.standardError)")
        #expect(deep.standardOutput.contains("unreadableChangeSet") && deep.standardOutput.contains(damaged.lastPathComponent), "\(deep.standardOutput)")
    }

    @Test("--keep-days: vacuum keeps recent change sets and push-store keeps the whole store they need")
    func keepDays() async throws {
        let history = try await Self.makeHistory()
        #expect(try await RollsyncProcess.run(["push-store", "--db", history.first, "--keep-days", "7"]).status == 0)
        #expect(try await RollsyncProcess.run(["sync", "--db", history.second]).status == 0)
        let vacuum = try await RollsyncProcess.run(["vacuum", "--db", history.first, "--keep-days", "7", "--json"])
        #expect(vacuum.status == 0, "\(vacuum.standardError)")
        let result = try #require(try vacuum.jsonObjects().first)
        #expect(result["removedSets"] as? Int == 0 && result["heldBackBy"] as? [String] == ["--keep-days"])
        let restored = history.workspace.path("restored.sqlite")
        #expect(try await RollsyncProcess.run(["restore", "--db", history.second, "--at", history.moment, "--to", restored]).status == 0)
        #expect(try history.workspace.notes(in: restored) == ["a=first title"])
    }
}
