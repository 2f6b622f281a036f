import Foundation
import GRDB
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rollsync watch` run as a separate process beside writers (sqlite3, another connection) and a
/// second client: it syncs other processes' writes, follows other clients, keeps going (backing off)
/// while the remote is gone, and stops cleanly on SIGTERM/SIGINT after the running sync. Every wait
/// is for a condition, bounded; nothing depends on how long anything takes.
@Suite("rollsync watch")
struct WatchCommandTests {
    @Test("a write by another process (sqlite3) reaches the other client; SIGINT stops it with exit code 0")
    func syncsOtherProcessesWrites() async throws {
        let lab = try WatchLab()
        let first = try await lab.client("first")
        let second = try await lab.client("second")
        // Remote checks every 5 minutes, also after activity (without --active-interval they come
        // 3, 6, 12… s after the start sync, and one of them may find the write first): only the
        // check of the database can notice the write.
        let watch = try lab.watch(first, ["--delay", "0.1", "--interval", "300", "--active-interval", "300"], json: false)
        try await watch.waitForOutput("the start sync") { $0.contains(" sync (start): ") }

        try await lab.sqlite(first, "BEGIN; INSERT INTO notes VALUES ('1', 'one'), ('2', 'two'), ('3', 'three'); COMMIT;")
        try await watch.waitForOutput("the sync of the three notes") {
            $0.contains(" sync (local changes): applied 0 changes from 0 change sets, pushed 3 changes; ")
        }
        let pulled = try await RollsyncProcess.run(["sync", "--db", second, "--json"])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(try pulled.jsonObjects().first?["appliedChanges"] as? Int == 3)
        #expect(try lab.notes(second) == ["1=one", "2=two", "3=three"])

        #expect(watch.process.send(SIGINT))
        let outcome = await watch.process.wait()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(" watching \(first) (remote file://") == true, "\(outcome.standardOutput)")
        // At least the start sync and the sync of the notes (a loaded machine may add a sync that
        // finds nothing); one line per sync between the start and stop lines, and no failure.
        let summary = lines.last?.split(separator: " ").map(String.init) ?? []
        let syncs = summary.firstIndex(of: "syncs,").flatMap { Int(summary[$0 - 1]) } ?? 0
        #expect(lines.last?.contains(" stopped on SIGINT: ") == true && lines.last?.hasSuffix(" syncs, 0 failed attempts") == true,
                "\(outcome.standardOutput)")
        #expect(syncs >= 2 && lines.count == syncs + 2, "\(outcome.standardOutput)")
    }

    @Test("two watches with default timing: a row sqlite3 inserts on one reaches the other within seconds", .timeLimit(.minutes(10)))
    func defaultTimingPropagatesQuickly() async throws {
        let lab = try WatchLab()
        let first = try await lab.client("first")
        let second = try await lab.client("second")
        let writer = try lab.watch(first, [])
        let reader = try lab.watch(second, [])
        _ = try await writer.waitForEvent("the writer's start sync") { $0["event"] as? String == "synced" }
        _ = try await reader.waitForEvent("the reader's start sync") { $0["event"] as? String == "synced" }
        let inserted = Date()
        try await lab.sqlite(first, "INSERT INTO notes VALUES ('p', 'propagated');")
        let arrived = try await reader.waitForEvent("the row's arrival") {
            $0["event"] as? String == "synced" && ($0["appliedChanges"] as? Int ?? 0) > 0
        }
        // Behaviour, not a benchmark: within the active checks (3 s, 6 s, 12 s… after the start),
        // far below the 60 s idle ceiling; the log line gives the figure.
        let seconds = Date().timeIntervalSince(inserted)
        print("watch propagation with default timing: \(String(format: "%.1f", seconds)) s")
        // Woken by the writer's new marker (announcement), or, when that came before the set's
        // upload, by the next change of the markers (a check retrying the announced set).
        #expect(["remoteAnnouncement", "remoteCheck"].contains(arrived["trigger"] as? String ?? ""), "\(arrived)")
        #expect(try lab.notes(second) == ["p=propagated"])
        for watch in [writer, reader] {
            #expect(watch.process.send(SIGINT))
            #expect(await watch.process.wait().status == 0)
        }
    }

    @Test("SIGTERM during a sync lets it finish (here: waiting for the application's transaction), then exit code 0")
    func sigtermFinishesTheRunningSync() async throws {
        let lab = try WatchLab()
        let first = try await lab.client("first")
        let second = try await lab.client("second")
        let watch = try lab.watch(first, ["--delay", "0.1", "--interval", "0.2", "--busy-timeout", "120", "--log-level", "debug"])
        _ = try await watch.waitForEvent("the start sync") { $0["event"] as? String == "synced" }

        // The application holds a write transaction; another client syncs, so the next remote check
        // starts a sync that cannot apply the change before the application commits.
        let application = try WatchLab.holdWriteTransaction(on: first)
        try await lab.sqlite(second, "INSERT INTO notes VALUES ('b', 'from second')")
        let pushed = try await RollsyncProcess.run(["sync", "--db", second])
        #expect(pushed.status == 0, "\(pushed.standardError)")
        try await waitUntil("the second sync starts") { watch.process.standardErrorSoFar.components(separatedBy: "sync started").count - 1 >= 2 }

        #expect(watch.process.send(SIGTERM))
        try await waitUntil("watch acknowledges SIGTERM") {
            watch.process.standardErrorSoFar.contains("SIGTERM: stopping after the running sync")
        }
        #expect(!watch.process.hasEnded, "it waits for the running sync, which waits for the application")
        #expect(try !watch.events().contains { $0["event"] as? String == "stopped" })
        try application.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try application.close()

        let outcome = await watch.process.wait()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let events = try outcome.jsonObjects()
        #expect(events.map { $0["command"] as? String } == Array(repeating: "watch", count: events.count))
        let last = try #require(events.last)
        #expect(last["event"] as? String == "stopped" && last["signal"] as? String == "SIGTERM", "\(last)")
        let finished = try #require(events.dropLast().last, "\(outcome.standardOutput)")
        #expect(finished["event"] as? String == "synced", "the running sync finished before the stop: \(finished)")
        #expect(finished["trigger"] as? String == "remoteAnnouncement", "another client's set woke it: \(finished)")
        // The poll may see second's marker before second's set is uploaded (a marker announces its
        // set first): that sync then finds nothing yet, and the set waits for the next one.
        if finished["appliedChanges"] as? Int != 1 {
            #expect(finished["appliedChanges"] as? Int == 0, "\(finished)")
            let caughtUp = try await RollsyncProcess.run(["sync", "--db", first])
            #expect(caughtUp.status == 0, "\(caughtUp.standardError)")
        }
        #expect(try lab.notes(first) == ["b=from second"])
    }

    @Test("a folder remote that goes away: failures reported with back-off up to the maximum, recovery when it returns")
    func folderRemoteGoesAwayAndReturns() async throws {
        let lab = try WatchLab()
        let first = try await lab.client("first")
        let second = try await lab.client("second")
        let watch = try lab.watch(first, ["--delay", "0.05", "--interval", "0.2", "--max-backoff", "0.8"])
        _ = try await watch.waitForEvent("the start sync") { $0["event"] as? String == "synced" }

        let away = lab.remote + ".away"
        try FileManager.default.moveItem(atPath: lab.remote, toPath: away)
        try await lab.sqlite(first, "INSERT INTO notes VALUES ('1', 'written while the remote is away')")
        try await waitUntil("watch reports five failures") { try watch.events().filter { $0["event"] as? String == "failed" }.count >= 5 }
        #expect(!watch.process.hasEnded)
        let failures = try watch.events().filter { $0["event"] as? String == "failed" }
        for failure in failures {
            #expect(failure["exitCode"] as? Int == 2, "\(failure)")
            #expect((failure["error"] as? String)?.contains("shared") == true, "names the folder: \(failure)")
        }
        #expect(failures.map { $0["consecutiveFailures"] as? Int } == Array(1...failures.count))
        let waits = failures.filter { $0["trigger"] as? String == "remoteCheck" }.compactMap { $0["retryInSeconds"] as? Double }
        #expect(waits.count >= 4, "\(failures)")
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 }, "the waits grow: \(waits)")
        #expect(waits.allSatisfy { $0 <= 0.8 } && waits.last == 0.8, "up to --max-backoff: \(waits)")

        try FileManager.default.moveItem(atPath: away, toPath: lab.remote)
        let recovered = try await watch.waitForEvent("a sync after the remote returns") {
            $0["event"] as? String == "synced" && $0["recovered"] as? Bool == true
        }
        #expect(recovered["pushedChanges"] as? Int == 1, "\(recovered)")
        let pulled = try await RollsyncProcess.run(["sync", "--db", second])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(try lab.notes(second) == ["1=written while the remote is away"])

        let outcome = try await watch.stop()
        #expect(outcome.status == 0, "\(outcome.standardError)")
    }

    @Test("a WebDAV server stopped and restarted while watching", .enabled(if: TestServerEnvironment.webDAVEnabled))
    func webDAVServerRestarts() async throws {
        let server = try await PrivateApacheServer()
        try await server.start()
        let lab = try WatchLab(remote: server.url)
        let options = ["--user", PrivateApacheServer.user]
        let environment = ["ROLLSYNC_WEBDAV_PASSWORD": PrivateApacheServer.password]
        let first = try await lab.client("first", options: options, environment: environment)
        let second = try await lab.client("second", options: options, environment: environment)
        let watch = try lab.watch(first, ["--delay", "0.05", "--interval", "0.2", "--max-backoff", "1"], environment: environment)
        _ = try await watch.waitForEvent("the start sync") { $0["event"] as? String == "synced" }

        server.stop()
        try await lab.sqlite(first, "INSERT INTO notes VALUES ('1', 'written while the server is down')")
        try await waitUntil("watch reports three failures", timeout: .seconds(120)) {
            try watch.events().filter { $0["event"] as? String == "failed" }.count >= 3
        }
        #expect(!watch.process.hasEnded)
        let failures = try watch.events().filter { $0["event"] as? String == "failed" }
        #expect(failures.allSatisfy { $0["exitCode"] as? Int == 2 }, "unavailable, not an authentication error: \(failures)")
        #expect(failures.compactMap { $0["retryInSeconds"] as? Double }.allSatisfy { $0 <= 1 }, "\(failures)")

        try await server.start()
        let recovered = try await watch.waitForEvent("a sync after the server is back", timeout: .seconds(120)) {
            $0["event"] as? String == "synced" && $0["recovered"] as? Bool == true
        }
        #expect(recovered["pushedChanges"] as? Int == 1, "\(recovered)")
        let pulled = try await RollsyncProcess.run(["sync", "--db", second], environment: environment)
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(try lab.notes(second) == ["1=written while the server is down"])

        let outcome = try await watch.stop()
        #expect(outcome.status == 0, "\(outcome.standardError)")
    }

    @Test("two watching clients under high-rate deletions, re-creations and updates by sqlite3 end converged")
    func highRateDeletionsAndRecreations() async throws {
        let run = try await HighRateRun()
        // Each round, each client deletes the rows it created in the previous round and creates
        // them again under new keys (keys are never reused, Docs/Conflicts.md), and both update the
        // shared rows; one transaction per statement.
        try await run.write(rounds: 200) { name, round in
            var lines: [String] = []
            for slot in 0..<6 {
                if round > 1 { lines.append("DELETE FROM notes WHERE id = '\(name)-\(slot)-\(round - 1)';") }
                lines.append("INSERT INTO notes VALUES ('\(name)-\(slot)-\(round)', '\(name) round \(round)');")
                if round.isMultiple(of: 3) {
                    lines.append("UPDATE notes SET title = title || ' edited' WHERE id = '\(name)-\(slot)-\(round)';")
                }
            }
            lines += HighRateRun.shared.map { "UPDATE notes SET title = '\(name) round \(round)' WHERE id = '\($0)';" }
            return lines
        }
        let rows = try await run.waitUntilConverged(timeout: .seconds(120))
        let expected = ["first", "second"].flatMap { name in (0..<6).map { "\(name)-\($0)-200=\(name) round 200" } }.sorted()
        #expect(rows.filter { !$0.hasPrefix("shared") } == expected, "each client's rows end as its last writes left them")
        #expect(rows.filter { $0.hasPrefix("shared") }.count == HighRateRun.shared.count)
        try await run.stop()
    }

    /// The application deletes rows and inserts them again under the same keys (a "save" that
    /// rewrites rows) at high rate on both clients. A key deleted and created again by one client
    /// converges (an insert newer than the tombstone re-creates the row). Two clients re-creating
    /// the SAME key concurrently converge on the newer creation: each created row records its
    /// insert clock, pushed or applied.
    @Test("two watching clients under high-rate deletes and re-inserts of the same keys by sqlite3")
    func highRateDeletesAndReinsertsOfTheSameKeys() async throws {
        let run = try await HighRateRun()
        try await run.write(rounds: 200) { name, round in
            var lines: [String] = []
            for key in (0..<6).map({ "\(name)-\($0)" }) + HighRateRun.shared {
                lines.append("DELETE FROM notes WHERE id = '\(key)';")
                // A shared key deleted here may come back from the other client before the insert.
                lines.append("INSERT OR REPLACE INTO notes VALUES ('\(key)', '\(name) round \(round)');")
            }
            return lines
        }
        let rows = try await run.waitUntilConverged(timeout: .seconds(20))
        let expected = ["first", "second"].flatMap { name in (0..<6).map { "\(name)-\($0)=\(name) round 200" } }.sorted()
        #expect(rows.filter { !$0.hasPrefix("shared") } == expected)
        try await run.stop()
    }

    @Test("options are checked, and a database not set up ends it at once with exit code 4")
    func refusals() async throws {
        let lab = try WatchLab()
        let first = try await lab.client("first")
        let backoff = try await RollsyncProcess.run(["watch", "--db", first, "--interval", "10", "--max-backoff", "5"])
        #expect(backoff.status == 1, "\(backoff.standardError)")
        #expect(backoff.standardError.contains("--max-backoff"))
        let plain = try lab.workspace.makeNotesDatabase("plain.sqlite")
        let notSetUp = try await RollsyncProcess.run(["watch", "--db", plain])
        #expect(notSetUp.status == 4, "\(notSetUp.standardError)")
        #expect(notSetUp.standardError.contains("rollsync init"))
    }
}

/// Two clients, each with a `watch` (short intervals, JSON lines), written to at high rate by one
/// sqlite3 process each, and the checks that they end with the same rows.
private struct HighRateRun {
    /// Rows both clients update, created before the watches start.
    static let shared = (0..<3).map { "shared-\($0)" }

    let lab: WatchLab
    let first: String
    let second: String
    let watches: [WatchProcess]

    init() async throws {
        lab = try WatchLab()
        first = try await lab.client("first")
        second = try await lab.client("second")
        try await lab.sqlite(first, Self.shared.map { "INSERT INTO notes VALUES ('\($0)', 'created');" }.joined())
        for database in [first, second] {
            let outcome = try await RollsyncProcess.run(["sync", "--db", database])
            try #require(outcome.status == 0, "\(outcome.standardError)")
        }
        let arguments = ["--delay", "0.02", "--interval", "0.2", "--check-interval", "0.02"]
        watches = [try lab.watch(first, arguments), try lab.watch(second, arguments)]
        for watch in watches {
            _ = try await watch.waitForEvent("the start sync") { $0["event"] as? String == "synced" }
        }
    }

    /// Runs, at once on both clients (named `first` and `second`), the SQL lines `round` returns for
    /// rounds 1 through `rounds`, each statement its own transaction, with a pause of 10 ms every
    /// fourth round so the writes spread over many syncs.
    func write(rounds: Int, _ round: (String, Int) -> [String]) async throws {
        var scripts: [String] = []
        for name in ["first", "second"] {
            var lines = [".timeout 60000", "PRAGMA synchronous = OFF;"]
            for number in 1...rounds {
                if number.isMultiple(of: 4) { lines.append(".shell sleep 0.01") }
                lines += round(name, number)
            }
            scripts.append(try lab.scriptFile(lines.joined(separator: "\n")))
        }
        let sqlite3 = lab.sqlite3
        let (first, second) = (first, second)
        let (firstScript, secondScript) = (scripts[0], scripts[1])
        async let firstWrites = TestProcess.run(sqlite3, ["-bail", first, ".read \(firstScript)"])
        async let secondWrites = TestProcess.run(sqlite3, ["-bail", second, ".read \(secondScript)"])
        for outcome in try await [firstWrites, secondWrites] {
            try #require(outcome.status == 0, "sqlite3: \(outcome.standardError)")
        }
    }

    /// Waits until both clients hold the same rows with nothing left to push, and returns them.
    func waitUntilConverged(timeout: Duration) async throws -> [String] {
        do {
            try await lab.eventually("both clients hold the same rows and have nothing left to push", timeout: timeout) {
                guard try lab.notes(first) == lab.notes(second) else { return false }
                let pending = [try await lab.pendingChanges(first), try await lab.pendingChanges(second)]
                return pending == [0, 0]
            }
        } catch {
            let rows = [try lab.notes(first), try lab.notes(second)]
            let missing = [Set(rows[1]).subtracting(rows[0]).sorted(), Set(rows[0]).subtracting(rows[1]).sorted()]
            throw TestSupportError("\(error); only on second: \(missing[0]); only on first: \(missing[1])")
        }
        return try lab.notes(first)
    }

    /// Stops both watches (SIGTERM): exit code 0, no failed sync, several syncs each.
    func stop() async throws {
        for watch in watches {
            let outcome = try await watch.stop()
            #expect(outcome.status == 0, "\(outcome.standardError)")
            let events = try outcome.jsonObjects()
            #expect(!events.contains { $0["event"] as? String == "failed" }, "\(events.filter { $0["event"] as? String == "failed" })")
            #expect(events.filter { $0["event"] as? String == "synced" }.count >= 3, "\(outcome.standardOutput)")
            #expect(events.last?["event"] as? String == "stopped")
        }
    }
}

/// Clients of a notes table sharing one remote, with the tools the watch tests drive.
private struct WatchLab {
    let workspace: Workspace
    /// The remote: a folder in the workspace unless given.
    let remote: String
    let sqlite3: String

    init(remote: String? = nil) throws {
        workspace = try Workspace()
        self.remote = remote ?? workspace.path("shared")
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let directory = path.split(separator: ":").first(where: { FileManager.default.isExecutableFile(atPath: "\($0)/sqlite3") }) else {
            throw TestSupportError("the sqlite3 command-line tool is not on PATH (Debian: apt-get install sqlite3)")
        }
        sqlite3 = "\(directory)/sqlite3"
    }

    /// Creates `name.sqlite` with a notes table and runs `rollsync init` on it.
    func client(_ name: String, options: [String] = [], environment: [String: String?] = [:]) async throws -> String {
        let file = try workspace.makeNotesDatabase("\(name).sqlite")
        let outcome = try await RollsyncProcess.run(
            ["init", "--db", file, "--remote", remote, "--table", "notes", "--description", name] + options, environment: environment
        )
        try #require(outcome.status == 0, "init \(name): \(outcome.standardError)")
        return file
    }

    /// Starts `rollsync watch --db file arguments…` (with `--json` unless `json` is false).
    func watch(_ file: String, _ arguments: [String], json: Bool = true, environment: [String: String?] = [:]) throws -> WatchProcess {
        WatchProcess(
            process: try KillableProcess(
                try RollsyncProcess.binary(), ["watch", "--db", file] + arguments + (json ? ["--json"] : []), environment: environment
            )
        )
    }

    /// Runs `sql` with the sqlite3 tool on `file` (waiting up to a minute for locks).
    func sqlite(_ file: String, _ sql: String) async throws {
        let outcome = try await TestProcess.run(sqlite3, ["-bail", "-cmd", ".timeout 60000", file, sql])
        try #require(outcome.status == 0, "sqlite3: \(outcome.standardError)")
    }

    /// Writes `script` (sqlite3 commands, one per line) to a file of the workspace and returns its path.
    func scriptFile(_ script: String) throws -> String {
        let path = workspace.path("script-\(UUID().uuidString).sql")
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The notes of `file` as `id=title`, sorted by id, read while others may be writing.
    func notes(_ file: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(30)
        let queue = try DatabaseQueue(path: file, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, title FROM notes ORDER BY id").map { "\($0["id"] as String)=\($0["title"] as String)" }
        }
    }

    /// The pending local changes of `file`, as `rollsync status` counts them.
    func pendingChanges(_ file: String) async throws -> Int {
        let status = try await RollsyncProcess.run(["status", "--db", file, "--json"])
        try #require(status.status == 0, "status: \(status.standardError)")
        return try #require(try status.jsonObjects().first?["pendingChanges"] as? Int)
    }

    /// Checks `condition` every 100 ms until it holds; throws if it still does not after `timeout`.
    func eventually(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TestSupportError("gave up waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// A connection of "the application" holding a write transaction (BEGIN IMMEDIATE) on `file`.
    static func holdWriteTransaction(on file: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        configuration.busyMode = .timeout(30)
        let queue = try DatabaseQueue(path: file, configuration: configuration)
        try queue.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        return queue
    }
}

/// A running `rollsync watch` and its output so far; killed (SIGKILL) when released still running,
/// so a test that fails early leaves no process behind.
private final class WatchProcess {
    let process: KillableProcess

    init(process: KillableProcess) {
        self.process = process
    }

    deinit {
        process.send(SIGKILL)
    }

    /// The JSON objects of the complete lines printed so far.
    func events() throws -> [[String: Any]] {
        try completeLines().map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    /// The complete lines printed so far.
    func completeLines() -> [String] {
        var lines = process.standardOutputSoFar.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // after the last newline: empty, or a line being written
        return lines
    }

    /// Waits until an event matching `matches` is printed and returns the first one.
    func waitForEvent(
        _ what: String, timeout: Duration = .seconds(60), _ matches: @escaping ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        try await waitUntil(what, timeout: timeout) {
            try checkRunning(what)
            return try events().contains(where: matches)
        }
        return try #require(try events().first(where: matches))
    }

    /// Waits until a printed line matches `matches` (human output).
    func waitForOutput(_ what: String, timeout: Duration = .seconds(60), _ matches: @escaping (String) -> Bool) async throws {
        try await waitUntil(what, timeout: timeout) {
            try checkRunning(what)
            return completeLines().contains(where: matches)
        }
    }

    /// Sends SIGTERM and returns the outcome.
    func stop() async throws -> TestProcess.Outcome {
        #expect(process.send(SIGTERM), "watch ended before it was stopped: \(process.standardErrorSoFar)")
        return await process.wait()
    }

    private func checkRunning(_ what: String) throws {
        if process.hasEnded {
            throw TestSupportError("watch ended while waiting for \(what): \(process.standardOutputSoFar)\n\(process.standardErrorSoFar)")
        }
    }
}

