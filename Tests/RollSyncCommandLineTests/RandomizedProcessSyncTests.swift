import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three databases of a small notes app (folders, notes filed in them, tags on notes in a join
/// table with a composite key, checklist items with an `INTEGER PRIMARY KEY AUTOINCREMENT` that
/// sqlite3 numbers; foreign keys with ON DELETE SET NULL and ON DELETE CASCADE) kept in sync by the real `rollsync` binary, each
/// command its own process, and written by `sqlite3` processes as an application would, under a
/// seeded random schedule: edits that collide across clients (a folder deleted on one client while
/// another files notes in it), syncs, syncs killed with SIGKILL at a random moment, two clients
/// syncing at once, an application write while a sync of the same database runs, `push-store`,
/// `pull-store` on a client with unpushed changes, and `vacuum` (sometimes retiring every silent
/// client at once). Then rounds of syncs until nothing moves, and the data must be right: the
/// same rows everywhere, no foreign-key violation, no corruption, nothing an application deleted
/// back, and nothing an application inserted lost unless the engine listed it in
/// `rollingsync_removed_rows`.
///
/// The normal suite runs three seeds through a folder, and one seed through each real server
/// (sshd, Apache mod_dav) when `Scripts/test-servers.sh` has started them; `ROLLSYNC_SIMULATION_SEEDS=<n>`
/// runs seeds 1…n through the folder instead. A seed fixes every random choice, not the timing of
/// processes, so a failing seed replays closely but not byte for byte; every message names its
/// seed, and a failing run prints its step trace.
@Suite("rollsync processes: seeded random edits, syncs, kills and whole stores")
struct RandomizedProcessSyncTests {
    static var folderSeeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"], let count = UInt64(text), count > 0 {
            return Array(1...count)
        }
        return [1, 2, 3]
    }

    @Test("three databases converge through a folder", arguments: folderSeeds)
    func folder(seed: UInt64) async throws {
        let workspace = try Workspace()
        let backend = ProcessSimulationBackend(name: "folder", remote: workspace.path("shared"), initOptions: [], environment: [:])
        try await ProcessSyncSimulation(seed: seed, backend: backend, workspace: workspace).run()
    }

    @Test("three databases converge through SFTP", .enabled(if: TestServerEnvironment.sftpEnabled))
    func sftp() async throws {
        let workspace = try Workspace()
        let backend = ProcessSimulationBackend(
            name: "sftp",
            remote: try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_URL") + "/randomized-\(UUID().uuidString)",
            initOptions: [
                "--identity-file", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_IDENTITY"),
                "--known-hosts", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"),
            ],
            environment: [:]
        )
        try await ProcessSyncSimulation(seed: 1001, backend: backend, workspace: workspace).run()
    }

    @Test("three databases converge through WebDAV (Apache)", .enabled(if: TestServerEnvironment.webDAVEnabled))
    func webDAV() async throws {
        let workspace = try Workspace()
        let backend = ProcessSimulationBackend(
            name: "webdav",
            remote: try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_APACHE_URL"),
            initOptions: [
                "--user", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_USER"), "--app", "randomized-\(UUID().uuidString)",
            ],
            environment: ["ROLLSYNC_WEBDAV_PASSWORD": try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_PASSWORD")]
        )
        try await ProcessSyncSimulation(seed: 2001, backend: backend, workspace: workspace).run()
    }
}

/// Where the simulated clients meet: the `--remote` of `init`, the options `init` needs there, and
/// the environment every `rollsync` command needs (a WebDAV password).
struct ProcessSimulationBackend: Sendable {
    var name: String
    var remote: String
    var initOptions: [String]
    var environment: [String: String?]
}

/// The choices of the process simulation, from the shared seedable generator, so a seed fixes
/// every choice.
extension SplitMix64 {
    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// One element of `elements`, `nil` if it is empty.
    mutating func pick<T>(_ elements: [T]) -> T? {
        elements.isEmpty ? nil : elements[below(elements.count)]
    }
}

/// One seeded run: three clients, the random steps, the settling syncs and the checks.
///
/// The application never breaks its own foreign keys: with `foreign_keys` ON (some clients) SQLite
/// cascades and nulls for it; with it OFF (the others, the sqlite3 default) it deletes a note's tags
/// and unfiles a folder's notes itself, in the same transaction. Every key it inserts is new, so
/// after the settling syncs a key it deleted must be gone everywhere, and a key it inserted and
/// never deleted must be everywhere unless the engine removed it by a foreign-key or uniqueness
/// rule and said so in `rollingsync_removed_rows`.
final class ProcessSyncSimulation {
    static let tables = ["folders", "notes", "note_tags"]
    /// Tables whose rows are compared by content: `checklist` with an `INTEGER PRIMARY KEY
    /// AUTOINCREMENT` that sqlite3 numbers (ids differ between clients where two created the same
    /// one; Docs/Conflicts.md, "Integer keys"), each item's text unique.
    static let integerKeyedTables = ["checklist"]
    /// A notes app as such apps are: besides the references, an `updated_at` its trigger stamps and
    /// an FTS5 index over the titles kept by triggers (Docs/Conflicts.md, "Your own triggers").
    static let schema = """
        CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE notes (
            id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL, title TEXT, updated_at TEXT);
        CREATE TABLE note_tags (
            note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE, tag TEXT NOT NULL, label TEXT,
            id TEXT GENERATED ALWAYS AS (quote(note_id) || ',' || quote(tag)) VIRTUAL,
            PRIMARY KEY (note_id, tag));
        CREATE TABLE checklist (
            id INTEGER PRIMARY KEY AUTOINCREMENT, note_id TEXT REFERENCES notes(id) ON DELETE CASCADE, item TEXT NOT NULL);
        \(AppSchemaShapes.touchTrigger("notes_touch", on: "notes", stamp: "strftime('%Y-%m-%dT%H:%M:%f', 'now') || hex(randomblob(2))"))
        \(AppSchemaShapes.fts5Index("notes_fts", on: "notes", columns: ["title"]))
        """

    struct Client {
        var name: String
        var file: String
        /// Whether this client's application writes with `PRAGMA foreign_keys=ON`.
        var foreignKeys: Bool
    }

    private let seed: UInt64
    private let backend: ProcessSimulationBackend
    private let workspace: Workspace
    private let rollsync: String
    private let sqlite3: String
    private var random: SplitMix64
    private var clients: [Client] = []

    private var inserted: [String: Set<String>] = [:]
    private var deleted: [String: Set<String>] = [:]
    /// Every checklist item an application inserted: its client, the id sqlite3 gave it, its text.
    private var checklistIDs: [(client: String, id: String, item: String)] = []
    private var keyCount = 0
    private var step = 0
    private var trace: [String] = []
    private var problems = 0
    private var failedCommands = 0

    private var steps = 0
    private var syncs = 0
    private var kills = 0
    private var finishedBeforeKill = 0
    private var concurrentPairs = 0
    private var concurrentWrites = 0
    private var syncsFailedBesideWrite = 0
    private var failuresBesideWrite: Set<String> = []
    private var storesPushed = 0
    private var storesPulled = 0
    private var vacuums = 0
    private var retiringVacuums = 0
    private var rounds = 0
    private var removedByEngine = 0

    init(seed: UInt64, backend: ProcessSimulationBackend, workspace: Workspace) throws {
        self.seed = seed
        self.backend = backend
        self.workspace = workspace
        rollsync = try RollsyncProcess.binary()
        sqlite3 = try Self.sqlite3Path()
        random = SplitMix64(seed: seed)
        for table in Self.tables {
            inserted[table] = []
            deleted[table] = []
        }
    }

    private static func sqlite3Path() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/sqlite3") {
            return "\(directory)/sqlite3"
        }
        throw TestSupportError("the sqlite3 command-line tool is not on PATH (Debian: apt-get install sqlite3)")
    }

    // MARK: The run

    func run() async throws {
        try await setUp()
        let stepCount = 40 + random.below(21)
        for _ in 0..<stepCount {
            step += 1
            steps += 1
            try await randomStep()
        }
        step = 0
        try await settle()
        try await verify()
        check(failedCommands <= 5, "\(failedCommands) rollsync commands failed in all; the first 5 are reported above")
        let counts = try await rowCounts(clients[0])
        let lockFailures = failuresBesideWrite.isEmpty ? "" : " \(failuresBesideWrite.sorted())"
        print(
            "RandomizedProcessSync seed \(seed) [\(backend.name)]: \(steps) steps, \(syncs) syncs "
                + "(\(kills) killed with SIGKILL, \(finishedBeforeKill) finished before their kill, \(concurrentPairs) pairs at once, "
                + "\(concurrentWrites) beside a sqlite3 write of which \(syncsFailedBesideWrite) failed\(lockFailures)), "
                + "\(storesPushed) stores pushed, \(storesPulled) pulled, \(vacuums) vacuums (\(retiringVacuums) retiring), "
                + "\(rounds) settling rounds; rows at the end: \(counts), \(removedByEngine) listed as removed by the engine; "
                + "\(problems) problems"
        )
        if problems > 0 {
            print("RandomizedProcessSync seed \(seed) [\(backend.name)] trace:\n  " + trace.joined(separator: "\n  "))
        }
    }

    private func setUp() async throws {
        for index in 0..<3 {
            let client = Client(
                name: "client\(index)",
                file: workspace.path("client\(index).sqlite"),
                foreignKeys: (Int(seed % 2) + index) % 2 == 0
            )
            let created = try await TestProcess.run(sqlite3, ["-batch", "-bail", client.file, Self.schema])
            try #require(created.status == 0, "seed \(seed): sqlite3 could not create \(client.file): \(created.standardError)")
            let initialised = try await rollsyncProcess(
                ["init", "--db", client.file, "--remote", backend.remote, "--description", client.name, "--json"]
                    + (Self.tables + Self.integerKeyedTables).flatMap { ["--table", $0] } + backend.initOptions
            )
            try #require(initialised.status == 0, "seed \(seed) [\(backend.name)]: init of \(client.name): \(initialised.standardError)")
            clients.append(client)
            log("\(client.name): foreign_keys \(client.foreignKeys ? "ON" : "OFF")")
        }
        // A few shared rows first, so the random steps collide from the start.
        for _ in 0..<3 { try await insertFolder(clients[0]) }
        for _ in 0..<4 { try await insertNote(clients[0]) }
        for _ in 0..<3 { try await insertTag(clients[0]) }
        for client in clients { try await sync(client) }
    }

    private func randomStep() async throws {
        let client = clients[random.below(clients.count)]
        switch random.below(100) {
        case 0..<40:
            try await randomWrite(client)
        case 40..<58:
            try await sync(client)
        case 58..<68:
            try await killedSync(client)
        case 68..<75:
            let other = clients.filter { $0.name != client.name }[random.below(clients.count - 1)]
            try await syncTogether(client, other)
        case 75..<82:
            try await syncBesideWrite(client)
        case 82..<88:
            try await pushStore(client)
        case 88..<95:
            try await pullStoreWithUnpushedChanges(client)
        default:
            try await vacuum(client)
        }
    }

    // MARK: Application writes (sqlite3 processes)

    /// One random edit on `client`, aimed at its current rows.
    private func randomWrite(_ client: Client) async throws {
        let keys = try await localKeys(client)
        let folders = keys["folders"] ?? []
        let notes = keys["notes"] ?? []
        let tags = keys["note_tags"] ?? []
        if folders.count < 2 && random.chance(50) { return try await insertFolder(client) }
        switch random.below(100) {
        case 0..<10:
            try await insertFolder(client)
        case 10..<28:
            try await insertNote(client)
        case 28..<38:
            try await insertTag(client)
        case 38..<43:
            guard let folder = random.pick(folders) else { return try await insertFolder(client) }
            let sql = "UPDATE folders SET name = '\(client.name) step \(step)' WHERE id = '\(folder)';"
            try await write(client, "rename folder \(folder)", sql)
        case 43..<49:
            guard let note = random.pick(notes) else { return try await insertNote(client) }
            let sql = "UPDATE notes SET title = '\(client.name) step \(step)' WHERE id = '\(note)';"
            try await write(client, "retitle note \(note)", sql)
        case 49..<64:
            guard let note = random.pick(notes) else { return try await insertNote(client) }
            let folder = random.chance(85) ? random.pick(folders) : nil
            let sql = "UPDATE notes SET folder_id = \(literal(folder)) WHERE id = '\(note)';"
            try await write(client, "move note \(note) to \(folder ?? "no folder")", sql)
        case 64..<80:
            guard let folder = random.pick(folders) else { return try await insertFolder(client) }
            try await deleteFolder(client, folder)
        case 80..<87:
            guard let note = random.pick(notes) else { return try await insertNote(client) }
            try await deleteNote(client, note)
        case 87..<92:
            try await insertChecklistItem(client)
        case 92..<94:
            try await deleteChecklistItem(client)
        default:
            guard let tag = random.pick(tags) else { return try await insertTag(client) }
            if try await write(client, "delete tag \(tag)", "DELETE FROM note_tags WHERE id = \(Self.sqlLiteral(tag));") != nil {
                deleted["note_tags", default: []].insert(tag)
            }
        }
    }

    private func newKey(_ prefix: String) -> String {
        keyCount += 1
        return "\(prefix)\(keyCount)"
    }

    private func insertFolder(_ client: Client) async throws {
        let folder = newKey("f")
        let sql = "INSERT INTO folders VALUES ('\(folder)', '\(client.name) step \(step)'); SELECT changes();"
        if try await write(client, "insert folder \(folder)", sql)?.standardOutput == "1\n" {
            inserted["folders", default: []].insert(folder)
        }
    }

    /// Inserts a note, most often filed in one of the client's folders.
    private func insertNote(_ client: Client) async throws {
        let folders = try await localKeys(client)["folders"] ?? []
        let folder = random.chance(80) ? random.pick(folders) : nil
        let note = newKey("n")
        let sql = "INSERT INTO notes (id, folder_id, title) VALUES ('\(note)', \(literal(folder)), '\(client.name) step \(step)'); SELECT changes();"
        if try await write(client, "insert note \(note) in \(folder ?? "no folder")", sql)?.standardOutput == "1\n" {
            inserted["notes", default: []].insert(note)
        }
    }

    private func insertTag(_ client: Client) async throws {
        guard let note = random.pick(try await localKeys(client)["notes"] ?? []) else { return try await insertNote(client) }
        let tag = newKey("t")
        let sql = "INSERT INTO note_tags (note_id, tag, label) VALUES ('\(note)', '\(tag)', 'tag \(step)'); SELECT changes();"
        if try await write(client, "insert tag \(tag) on \(note)", sql)?.standardOutput == "1\n" {
            // The join table's generated `id` spells its composite key as the engine's row key does.
            inserted["note_tags", default: []].insert("'\(note)','\(tag)'")
        }
    }

    /// Adds a checklist item, under a note or none; sqlite3 numbers it, and the id it gave must
    /// stay this item's on this client.
    private func insertChecklistItem(_ client: Client) async throws {
        let note = random.chance(85) ? random.pick(try await localKeys(client)["notes"] ?? []) : nil
        let item = "\(newKey("i")) by \(client.name)"
        let sql = "INSERT INTO checklist (note_id, item) VALUES (\(literal(note)), '\(item)'); SELECT last_insert_rowid();"
        if let id = try await write(client, "insert checklist item \(item)", sql)?.standardOutput.split(separator: "\n").last {
            inserted["checklist", default: []].insert(item)
            checklistIDs.append((client.name, String(id), item))
        }
    }

    /// Deletes one of the client's checklist items, by the id it has there.
    private func deleteChecklistItem(_ client: Client) async throws {
        let items = try await query(client, "SELECT id || '|' || item FROM checklist ORDER BY id;")
        guard let line = random.pick(items), let separator = line.firstIndex(of: "|") else { return try await insertChecklistItem(client) }
        let item = String(line[line.index(after: separator)...])
        if try await write(client, "delete checklist item \(item)", "DELETE FROM checklist WHERE id = \(line[..<separator]);") != nil {
            deleted["checklist", default: []].insert(item)
        }
    }

    /// Deletes a folder; its notes stay, unfiled (SQLite does it with foreign keys ON, the
    /// application without).
    private func deleteFolder(_ client: Client, _ folder: String) async throws {
        let unfile = client.foreignKeys ? "" : "UPDATE notes SET folder_id = NULL WHERE folder_id = '\(folder)'; "
        if try await write(client, "delete folder \(folder)", unfile + "DELETE FROM folders WHERE id = '\(folder)';") != nil {
            deleted["folders", default: []].insert(folder)
        }
    }

    /// Deletes a note and its tags (cascaded by SQLite with foreign keys ON, by the application
    /// without); the tags it had are read in the same transaction.
    private func deleteNote(_ client: Client, _ note: String) async throws {
        let cascade = client.foreignKeys
            ? "" : "DELETE FROM note_tags WHERE note_id = '\(note)'; DELETE FROM checklist WHERE note_id = '\(note)'; "
        let sql = "SELECT 'tag|' || id FROM note_tags WHERE note_id = '\(note)'; SELECT 'item|' || item FROM checklist WHERE note_id = '\(note)'; "
            + cascade + "DELETE FROM notes WHERE id = '\(note)';"
        guard let outcome = try await write(client, "delete note \(note)", sql) else { return }
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        let tags = lines.filter { $0.hasPrefix("tag|") }.map { String($0.dropFirst(4)) }
        deleted["notes", default: []].insert(note)
        deleted["note_tags", default: []].formUnion(tags)
        deleted["checklist", default: []].formUnion(lines.filter { $0.hasPrefix("item|") }.map { String($0.dropFirst(5)) })
        if !tags.isEmpty { log("  with its tags \(tags.joined(separator: " "))") }
    }

    /// Runs `body` in one immediate transaction on `client` with the sqlite3 tool, as the
    /// application; returns its outcome, or `nil` (a problem) if it failed.
    @discardableResult
    private func write(_ client: Client, _ what: String, _ body: String) async throws -> TestProcess.Outcome? {
        log("\(client.name): \(what)")
        let outcome = try await TestProcess.run(sqlite3, sqliteWriteArguments(client, body))
        guard outcome.status == 0 else {
            problem("the application write '\(what)' on \(client.name) failed with status \(outcome.status): \(outcome.standardError)")
            return nil
        }
        return outcome
    }

    /// The arguments that run `body` as the application of `client`: waiting up to 10 s for a lock
    /// like an application would, foreign keys as the client has them, in one transaction.
    private func sqliteWriteArguments(_ client: Client, _ body: String) -> [String] {
        let pragma = client.foreignKeys ? "PRAGMA foreign_keys=ON; " : ""
        return ["-batch", "-bail", "-cmd", ".timeout 10000", client.file, pragma + "BEGIN IMMEDIATE; " + body + " COMMIT;"]
    }

    private func literal(_ key: String?) -> String {
        key.map { "'\($0)'" } ?? "NULL"
    }

    /// `text` as an SQL string literal, quotes doubled.
    private static func sqlLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    // MARK: rollsync commands

    private func rollsyncProcess(_ arguments: [String]) async throws -> TestProcess.Outcome {
        try await TestProcess.run(rollsync, arguments, environment: backend.environment)
    }

    /// `rollsync sync --json` on `client`, which must succeed; returns its report.
    @discardableResult
    private func sync(_ client: Client, _ context: String = "") async throws -> [String: Any]? {
        let outcome = try await rollsyncProcess(["sync", "--db", client.file, "--json"])
        syncs += 1
        guard succeeded(outcome, "\(context)sync of \(client.name)") else { return nil }
        let report = try outcome.jsonObjects().first
        log("\(context)\(client.name): sync \(Self.summary(of: report))")
        return report
    }

    /// A sync killed with SIGKILL after it printed a random number of bytes of progress and a
    /// random number of polls more (if it has not finished by then, which must then be a success).
    private func killedSync(_ client: Client) async throws {
        let process = try KillableProcess(rollsync, ["sync", "--db", client.file], environment: backend.environment)
        // Small thresholds: a sync on loopback ends within milliseconds, and a kill that always
        // lands after the end tests nothing. Half the kills wait for no progress at all.
        let progressBytes = random.below(2) == 0 ? 0 : random.below(24)
        var polls = random.below(8)
        var sent = false
        while !process.hasEnded {
            if process.standardErrorByteCount >= progressBytes {
                if polls == 0 {
                    sent = process.send(SIGKILL)
                    break
                }
                polls -= 1
            }
            try await Task.sleep(for: .microseconds(250))
        }
        let outcome = await process.wait()
        syncs += 1
        let phases = outcome.standardError.split(separator: "\n").joined(separator: " ")
        if sent && outcome.status == 128 + SIGKILL {
            kills += 1
            log("\(client.name): sync killed with SIGKILL after '\(phases)'")
        } else if succeeded(outcome, "sync of \(client.name) to be killed") {
            finishedBeforeKill += 1
            log("\(client.name): sync finished before its kill")
        }
    }

    /// Two clients' syncs at the same time.
    private func syncTogether(_ first: Client, _ second: Client) async throws {
        let (binary, environment) = (rollsync, backend.environment)
        let (firstFile, secondFile) = (first.file, second.file)
        async let firstRun = TestProcess.run(binary, ["sync", "--db", firstFile, "--json"], environment: environment)
        async let secondRun = TestProcess.run(binary, ["sync", "--db", secondFile, "--json"], environment: environment)
        let outcomes = try await [firstRun, secondRun]
        syncs += 2
        concurrentPairs += 1
        for (client, outcome) in zip([first, second], outcomes) where succeeded(outcome, "sync of \(client.name) beside another client's") {
            log("\(client.name): sync beside another client's \(Self.summary(of: try outcome.jsonObjects().first))")
        }
    }

    /// A sync of `client` with the application inserting a note (in one of its folders, if that
    /// folder still exists in the transaction) into the same database while the sync runs, holding
    /// its write lock a random while. The write must succeed; the sync may fail ("database is
    /// locked"), which is counted.
    private func syncBesideWrite(_ client: Client) async throws {
        let folder = random.chance(80) ? random.pick(try await localKeys(client)["folders"] ?? []) : nil
        let note = newKey("n")
        let title = "'\(client.name) step \(step) beside a sync'"
        let insert = folder.map {
            "INSERT INTO notes (id, folder_id, title) SELECT '\(note)', id, \(title) FROM folders WHERE id = '\($0)';"
        } ?? "INSERT INTO notes (id, folder_id, title) VALUES ('\(note)', NULL, \(title));"
        let spin = random.below(300_000)
        let body = insert + " SELECT changes(); "
            + "WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter WHERE x < \(spin)) "
            + "SELECT count(*) > 0 FROM counter;"
        let process = try KillableProcess(rollsync, ["sync", "--db", client.file], environment: backend.environment)
        let progressBytes = random.below(48)
        while !process.hasEnded && process.standardErrorByteCount < progressBytes {
            try await Task.sleep(for: .microseconds(250))
        }
        log("\(client.name): insert note \(note) in \(folder ?? "no folder") beside a sync")
        let write = try await TestProcess.run(sqlite3, sqliteWriteArguments(client, body))
        let outcome = await process.wait()
        syncs += 1
        concurrentWrites += 1
        if write.status == 0 {
            if write.standardOutput.hasPrefix("1\n") {
                inserted["notes", default: []].insert(note)
            } else {
                log("  \(note) not inserted: \(folder ?? "its folder") was gone")
            }
        } else {
            problem("the application write beside a sync of \(client.name) failed with status \(write.status): \(write.standardError)")
        }
        if outcome.status == 0 {
            log("\(client.name): the sync beside the write succeeded")
        } else {
            syncsFailedBesideWrite += 1
            let reason = Self.errorLines(of: outcome.standardError)
            failuresBesideWrite.insert(reason)
            log("\(client.name): the sync beside the write failed (accepted) with \(outcome.status): \(reason)")
        }
    }

    private func pushStore(_ client: Client) async throws {
        let outcome = try await rollsyncProcess(["push-store", "--db", client.file, "--json"])
        if succeeded(outcome, "push-store of \(client.name)") {
            storesPushed += 1
            log("\(client.name): push-store")
        }
    }

    /// Some unpushed edits on `client` (a deletion more often than not), then `pull-store`.
    private func pullStoreWithUnpushedChanges(_ client: Client) async throws {
        guard storesPushed > 0 else { return try await pushStore(client) }
        for _ in 0..<(1 + random.below(2)) {
            let keys = try await localKeys(client)
            if random.chance(60), let note = random.pick(keys["notes"] ?? []) {
                try await deleteNote(client, note)
            } else if random.chance(40), let folder = random.pick(keys["folders"] ?? []) {
                try await deleteFolder(client, folder)
            } else {
                try await randomWrite(client)
            }
        }
        let outcome = try await rollsyncProcess(["pull-store", "--db", client.file, "--json"])
        if succeeded(outcome, "pull-store of \(client.name) with unpushed changes") {
            storesPulled += 1
            let sync = try outcome.jsonObjects().first?["sync"] as? [String: Any]
            log("\(client.name): pull-store, then sync \(Self.summary(of: sync))")
        }
    }

    private func vacuum(_ client: Client) async throws {
        let retiring = random.chance(50)
        let outcome = try await rollsyncProcess(
            ["vacuum", "--db", client.file, "--json"] + (retiring ? ["--retire-after-days", "0"] : [])
        )
        if succeeded(outcome, "vacuum\(retiring ? " --retire-after-days 0" : "") of \(client.name)") {
            vacuums += 1
            retiringVacuums += retiring ? 1 : 0
            let report = try outcome.jsonObjects().first
            log("\(client.name): vacuum\(retiring ? " retiring" : "") removed \(report?["removedSets"] ?? "?") sets")
        }
    }

    // MARK: Settling and checking

    /// Rounds of syncs on every client until a round applies and pushes nothing (at most 6).
    private func settle() async throws {
        var quiet = false
        while !quiet && rounds < 6 {
            rounds += 1
            quiet = true
            for client in clients {
                guard let report = try await sync(client, "round \(rounds): ") else {
                    quiet = false
                    continue
                }
                if ["appliedSets", "appliedChanges", "pushedChanges"].contains(where: { (report[$0] as? Int ?? 0) != 0 }) {
                    quiet = false
                }
            }
        }
        check(quiet, "the clients still changed (or failed) after \(rounds) rounds of syncs")
        guard quiet else { return }
        for client in clients {
            let status = try await rollsyncProcess(["status", "--db", client.file, "--json"])
            if succeeded(status, "status of \(client.name)") {
                let pending = try status.jsonObjects().first?["pendingChanges"] as? Int
                check(pending == 0, "\(client.name) still has \(pending.map(String.init) ?? "?") pending changes after a quiet round")
            }
        }
    }

    private func verify() async throws {
        var dumps: [[String]] = []
        for client in clients {
            var dump: [String] = []
            for table in Self.tables {
                let rows = try await query(client, "SELECT * FROM \(table) ORDER BY id;", mode: "quote")
                dump += rows.map { "\(table): \($0)" }
            }
            dump += try await query(client, "SELECT 'checklist', note_id, item FROM checklist ORDER BY item;", mode: "quote")
            dumps.append(dump)
            let violations = try await query(client, "PRAGMA foreign_key_check;")
            check(violations.isEmpty, "\(client.name) breaks foreign keys (table|rowid|parent|fk): \(violations.prefix(8))")
            let integrity = try await query(client, "PRAGMA integrity_check;")
            check(integrity == ["ok"], "\(client.name) fails the integrity check: \(integrity.prefix(8))")
            let fts = try await TestProcess.run(sqlite3, ["-batch", client.file, "INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1);"])
            check(fts.status == 0, "\(client.name)'s FTS index does not match its notes: \(fts.standardError)")
        }
        for (client, dump) in zip(clients, dumps).dropFirst() where dump != dumps[0] {
            let onlyHere = Set(dump).subtracting(dumps[0]).sorted().prefix(6)
            let onlyThere = Set(dumps[0]).subtracting(dump).sorted().prefix(6)
            problem("\(client.name) differs from client0: only in \(client.name) \(Array(onlyHere)), only in client0 \(Array(onlyThere))")
        }

        var removed: Set<String> = []
        for client in clients {
            removed.formUnion(try await removedRows(client))
        }
        removedByEngine = removed.count
        var removedItems: Set<String> = []
        for client in clients {
            removedItems.formUnion(try await query(client, "SELECT json_extract(row_values, '$.item') FROM rollingsync_removed_rows WHERE table_name = 'checklist';"))
        }
        for client in clients {
            let items = Set(try await query(client, "SELECT item FROM checklist;"))
            let inserted = self.inserted["checklist"] ?? [], deleted = self.deleted["checklist"] ?? []
            check(items.isSubset(of: inserted), "\(client.name) holds checklist items no application inserted")
            let lost = inserted.subtracting(deleted).subtracting(items).subtracting(removedItems).sorted()
            check(lost.isEmpty, "\(client.name) lacks checklist items the application inserted and never deleted: \(lost.prefix(10))")
            let resurrected = items.intersection(deleted).sorted()
            check(resurrected.isEmpty, "\(client.name) holds checklist items the application deleted: \(resurrected.prefix(10))")
        }
        // No id sqlite3 handed out moved: it names the same item on its client, or none (deleted).
        for given in checklistIDs {
            guard let client = clients.first(where: { $0.name == given.client }) else { continue }
            let found = try await query(client, "SELECT item FROM checklist WHERE id = \(given.id);")
            check(found.isEmpty || found == [given.item], "\(client.name)'s checklist id \(given.id) was \(given.item), now \(found)")
            let present = try await query(client, "SELECT id FROM checklist WHERE item = '\(given.item)';")
            check(present.isEmpty || present == [given.id], "\(client.name)'s checklist item \(given.item) was given id \(given.id), now has \(present)")
        }
        for client in clients {
            let keys = try await localKeys(client)
            for table in Self.tables {
                let present = Set(keys[table] ?? [])
                let resurrected = present.intersection(deleted[table] ?? []).sorted()
                check(resurrected.isEmpty, "\(client.name) holds \(table) rows the application deleted: \(resurrected.prefix(10))")
                let alive = (inserted[table] ?? []).subtracting(deleted[table] ?? [])
                let lost = alive.subtracting(present).filter { !removed.contains("\(table)|\($0)") }.sorted()
                check(
                    lost.isEmpty,
                    "\(client.name) lacks \(table) rows the application inserted and never deleted, "
                        + "and no client lists them in rollingsync_removed_rows: \(lost.prefix(10))"
                )
                let unknown = present.subtracting(inserted[table] ?? []).sorted()
                check(unknown.isEmpty, "\(client.name) holds \(table) rows no application inserted: \(unknown.prefix(10))")
            }
        }
    }

    /// `table|key` for every row the engine of `client` says it removed (none if it has no such
    /// table yet).
    private func removedRows(_ client: Client) async throws -> Set<String> {
        let exists = try await query(client, "SELECT count(*) FROM sqlite_master WHERE name = 'rollingsync_removed_rows';")
        guard exists == ["1"] else { return [] }
        let rows = try await query(client, "SELECT table_name || '|' || CAST(row_key AS TEXT) FROM rollingsync_removed_rows;")
        return Set(rows)
    }

    /// The keys of every synced table of `client`, sorted.
    private func localKeys(_ client: Client) async throws -> [String: [String]] {
        let sql = Self.tables.map { "SELECT '\($0)', id FROM \($0)" }.joined(separator: " UNION ALL ") + " ORDER BY 1, 2;"
        var keys: [String: [String]] = [:]
        for line in try await query(client, sql) {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            if parts.count == 2 { keys[parts[0], default: []].append(parts[1]) }
        }
        return keys
    }

    private func rowCounts(_ client: Client) async throws -> String {
        let keys = try await localKeys(client)
        let checklist = try await query(client, "SELECT count(*) FROM checklist;").first ?? "?"
        return Self.tables.map { "\($0) \(keys[$0]?.count ?? 0)" }.joined(separator: ", ") + ", checklist \(checklist)"
    }

    /// The lines `sql` prints on `client` (read only; waits for locks).
    private func query(_ client: Client, _ sql: String, mode: String = "list") async throws -> [String] {
        let arguments = ["-batch", "-bail", "-cmd", ".timeout 10000", "-cmd", ".mode \(mode)", client.file, sql]
        let outcome = try await TestProcess.run(sqlite3, arguments)
        try #require(outcome.status == 0, "seed \(seed) [\(backend.name)]: sqlite3 '\(sql)' on \(client.name): \(outcome.standardError)")
        return outcome.standardOutput.split(separator: "\n").map(String.init)
    }

    // MARK: Reporting

    /// Whether `outcome` is a success; if not, a problem naming `what` (the first few in full).
    private func succeeded(_ outcome: TestProcess.Outcome, _ what: String) -> Bool {
        guard outcome.status != 0 else { return true }
        failedCommands += 1
        log("FAILED: \(what): status \(outcome.status): \(Self.errorLines(of: outcome.standardError))")
        if failedCommands <= 5 {
            problem("\(what) exited with status \(outcome.status): \(Self.errorLines(of: outcome.standardError))")
        } else {
            problems += 1
        }
        return false
    }

    private func check(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        if !condition { problem(message(), sourceLocation: sourceLocation) }
    }

    private func problem(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        problems += 1
        let place = step > 0 ? " at step \(step)" : ""
        Issue.record(Comment(rawValue: "seed \(seed) [\(backend.name)]\(place): \(message)"), sourceLocation: sourceLocation)
    }

    private func log(_ line: String) {
        trace.append(step > 0 ? "\(step). \(line)" : line)
    }

    private static func summary(of report: [String: Any]?) -> String {
        guard let report else { return "(no report)" }
        let numbers = ["appliedSets", "appliedChanges", "pushedChanges"].map { "\($0) \(report[$0] ?? "?")" }
        let conflicts = (report["conflicts"] as? [Any])?.count ?? 0
        let warnings = (report["warnings"] as? [String]) ?? []
        return numbers.joined(separator: ", ") + (conflicts > 0 ? ", \(conflicts) conflicts" : "")
            + warnings.map { "; warning: \($0)" }.joined()
    }

    /// The lines of a command's standard error that are not progress lines (`phase…`).
    private static func errorLines(of text: String) -> String {
        text.split(separator: "\n").filter { !$0.hasSuffix("…") }.joined(separator: " / ")
    }
}
