import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import TestSupport
import Testing

/// Seeded random histories on a to-do app's schema with integer keys (Docs/Conflicts.md, "Integer
/// keys"): lists with `AUTOINCREMENT` nested in lists, items with a plain `INTEGER PRIMARY KEY`,
/// tags with a unique label (collisions the uniqueness rule decides, and a restore puts back), a join table keyed by two integer references (`WITHOUT ROWID` on even seeds), an event
/// log without a primary key, and counters keyed by a `BIGINT` the app computes; foreign keys of
/// every `ON DELETE` action; indexes by the app's own collation and function
/// (``AppDefinitionsTests``). Clients start with rows of their own at the same ids (Docs/Conflicts.md,
/// "Joining with rows of its own"), the first (whose first sync uploads them) on most seeds.
/// Clients insert with `NULL` ids all the time, so ids collide between
/// clients constantly; they re-parent items, delete parents (SQLite cascades), sync in random order
/// (some syncs failing at a random remote call), upload whole stores, re-base clients with
/// unpushed changes on them and vacuum with retirement. Then rounds of syncs until nothing moves,
/// and, comparing rows through their global identities:
/// - every client holds the same rows with the same values and the same references, passes
///   `foreign_key_check` and `integrity_check`, and has nothing pending;
/// - **no id the app was given ever moved**: every row an application inserted that its client
///   still has is at the id SQLite gave it there;
/// - nothing is lost (unless an application deleted it or a rule saved it in
///   `rollingsync_removed_rows`) and nothing is resurrected;
/// - a deep verify of the remote is clean and a restore of the present rebuilds the same rows.
@Suite("Integer key simulation")
struct IntegerKeySimulationTests {
    static func schema(joinTableWithoutRowid: Bool) -> String {
        """
        CREATE TABLE list (
            id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT,
            parent_id INTEGER REFERENCES list(id) ON DELETE CASCADE);
        CREATE TABLE item (
            id INTEGER PRIMARY KEY,
            list_id INTEGER REFERENCES list(id) ON DELETE SET NULL,
            blocked_by INTEGER REFERENCES item(id),
            title TEXT, done INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE tag (id INTEGER PRIMARY KEY, label TEXT UNIQUE);
        CREATE TABLE item_tag (
            item_id INTEGER NOT NULL REFERENCES item(id) ON DELETE CASCADE,
            tag_id INTEGER NOT NULL REFERENCES tag(id) ON DELETE RESTRICT,
            PRIMARY KEY (item_id, tag_id))\(joinTableWithoutRowid ? " WITHOUT ROWID" : "");
        CREATE TABLE event (item_id INTEGER REFERENCES item(id) ON DELETE CASCADE, kind TEXT);
        CREATE TABLE counter (id BIGINT PRIMARY KEY NOT NULL, value INTEGER);
        CREATE INDEX item_by_title ON item (title COLLATE app);
        CREATE INDEX tag_by_label ON tag (label(label));
        """
    }
    static let tables = ["list", "item", "tag", "item_tag", "event", "counter"]

    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"], let count = UInt64(text), count > 0 {
            return Array(1...count)
        }
        return Array(1...12)
    }

    static var steps: Int { ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"] != nil ? 400 : 120 }

    /// A case's time limit: 10 minutes, or a long run's (all its cases start at once and share the
    /// machine, so each takes far longer than alone).
    static var timeLimitMinutes: Int { ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"] != nil ? 600 : 10 }

    @Test(
        "clients converge through global identities, no id moves, nothing lost or resurrected",
        .timeLimit(.minutes(timeLimitMinutes)), arguments: seeds
    )
    func clientsConverge(seed: UInt64) async throws {
        try await IntegerKeySimulation(seed: seed, steps: Self.steps).run()
    }
}

/// One seeded history of ``IntegerKeySimulationTests``.
final class IntegerKeySimulation {
    typealias Statement = (sql: String, arguments: StatementArguments)

    let seed: UInt64
    let steps: Int
    let label: String
    let tracing: Bool
    var random: SplitMix64
    let memory: InMemoryRemoteStore
    let clients: [TestClient]
    var step = 0
    var uploaders: Set<Int> = []

    /// Every row an application inserted (by global identity), with the client and the id SQLite gave it there.
    var inserted: [RowKey: (client: Int, id: Int64?)] = [:]
    /// Every row an application deleted (its statement or SQLite's cascade), with the client.
    var deletedByApp: [RowKey: Int] = [:]
    /// Join-table pairs an application linked again after one deleted them: present or not, both
    /// outcomes are right (the later write wins).
    var recreated: Set<RowKey> = []

    var localWrites = 0, refusedWrites = 0, syncs = 0, faulted = 0, uploads = 0, installs = 0, vacuums = 0, retirements = 0, removals = 0

    init(seed: UInt64, steps: Int) throws {
        self.seed = seed
        self.steps = steps
        label = "integer seed \(seed)"
        random = SplitMix64(seed: seed &+ 7_000)
        tracing = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_TRACE"] == "\(seed)"
        let remote = try TestRemote(.memory)
        memory = try remote.faults
        let count = 3 + Int(random.next() % 2)
        clients = try (0..<count).map { index in
            try TestClient(
                "client-\(index)", remote: remote.store,
                schema: IntegerKeySimulationTests.schema(joinTableWithoutRowid: seed % 2 == 0)
                    + (index > 0 || Self.creatorHoldsRows(seed: seed) ? Self.rowsBeforeJoining(of: index, sharedLabel: (seed + UInt64(index)) % 3 == 0) : ""),
                tables: IntegerKeySimulationTests.tables, lastSyncRecordInterval: TestClient.lastSyncRecordInterval(ofSimulatedClient: index),
                definitions: AppDefinitionsTests.define
            )
        }
        for (index, client) in clients.enumerated() {
            for (key, id) in try client.database.read(Self.rows) { inserted[key] = (index, id) }
        }
    }

    /// Whether the first client creates the document from rows of its own, which its first sync
    /// uploads as a whole store (three seeds in four); otherwise it holds none, and the others
    /// join a document without a store.
    static func creatorHoldsRows(seed: UInt64) -> Bool { seed % 4 != 0 }

    /// The rows client `index` holds before it syncs (Docs/Conflicts.md, "Joining with rows of its
    /// own"): list 1 and an item in it, as on every other client, a tag of its own, and with
    /// `sharedLabel` a tag whose unique label other clients may hold too.
    static func rowsBeforeJoining(of index: Int, sharedLabel: Bool) -> String {
        """
        INSERT INTO list (id, name) VALUES (1, 'held by client-\(index)');
        INSERT INTO item (list_id, title) VALUES (1, 'item held by client-\(index)');
        INSERT INTO tag (label) VALUES ('tag of client-\(index)');
        \(sharedLabel ? "INSERT INTO tag (label) VALUES ('common');" : "")
        """
    }

    func run() async throws {
        let creation = try await sync(0)
        #expect((creation.wholeStoreUploaded != nil) == Self.creatorHoldsRows(seed: seed), "\(label): a creator with rows uploads them")
        if creation.wholeStoreUploaded != nil { uploaders.insert(0) }
        for index in clients.indices.dropFirst() { try await sync(index) }
        for number in 1...steps {
            step = number
            try await performStep()
            try checkIDs()
        }
        step = steps + 1
        await memory.heal()
        var moved = true
        var rounds = 0
        while moved && rounds < 8 {
            moved = false
            rounds += 1
            for index in clients.indices {
                let report = try await sync(index)
                moved = moved || report.appliedSets > 0 || report.pushedChanges > 0 || report.wholeStoreInstalled != nil
            }
        }
        #expect(!moved, "\(label): still changing after \(rounds) rounds of syncs")
        try checkIDs()
        try verify()
        try await checkHistory()
    }

    func performStep() async throws {
        let index = self.index(clients.count)
        switch self.index(100) {
        case 0..<9: try insertList(on: index)
        case 9..<22: try insertItem(on: index)
        // Few labels, so that clients create the same one.
        case 22..<27: try write(on: index, [("INSERT INTO tag (label) VALUES (?)", ["label \(self.index(6))"])])
        case 27..<34: try linkItemTag(on: index)
        case 34..<39: try insertEvent(on: index)
        case 39..<42:
            try write(on: index, [("INSERT INTO counter VALUES ((SELECT coalesce(max(id), 0) + 1 FROM counter), ?)", [self.index(100)])])
        case 42..<47: try reparentItem(on: index)
        case 47..<55: try updateRow(on: index)
        case 55..<58: try deleteRow("list", on: index)
        case 58..<62: try deleteItem(on: index)
        case 62..<64: try deleteTag(on: index)
        case 64..<67: try deleteRow(chance(2) ? "event" : "counter", on: index)
        case 67..<83: try await sync(index)
        case 83..<88: try await faultedSync(index)
        case 88..<90: try await uploadWholeStore(from: index)
        case 90: try await removeAnotherClient(from: index)
        case 91..<95: try await rebase(index)
        default: try await vacuum(from: index)
        }
    }

    // MARK: Application writes (NULL ids: SQLite numbers the rows)

    func insertList(on index: Int) throws {
        let parent = chance(3) ? try pickID("list", on: index) : nil
        try write(on: index, [("INSERT INTO list (name, parent_id) VALUES (?, ?)", [text(), parent])])
    }

    func insertItem(on index: Int) throws {
        let list = chance(6) ? nil : try pickID("list", on: index)
        let blocker = chance(4) ? try pickID("item", on: index) : nil
        try write(on: index, [("INSERT INTO item (list_id, blocked_by, title) VALUES (?, ?, ?)", [list, blocker, text()])])
    }

    func linkItemTag(on index: Int) throws {
        guard let item = try pickID("item", on: index), let tag = try pickID("tag", on: index) else { return }
        if chance(3) {
            // A key change of the join table: the old link's deletion and the new one's creation.
            try write(on: index, [("UPDATE OR IGNORE item_tag SET tag_id = ? WHERE item_id = ?", [tag, item])])
        } else {
            try write(on: index, [("INSERT OR IGNORE INTO item_tag VALUES (?, ?)", [item, tag])])
        }
    }

    func insertEvent(on index: Int) throws {
        try write(on: index, [("INSERT INTO event (item_id, kind) VALUES (?, ?)", [try pickID("item", on: index), text()])])
    }

    func reparentItem(on index: Int) throws {
        guard let item = try pickID("item", on: index) else { return }
        try write(on: index, [("UPDATE item SET list_id = ? WHERE id = ?", [chance(5) ? nil : try pickID("list", on: index), item])])
    }

    /// An edit of one of the lowest ids, so that clients edit the same cells concurrently.
    func updateRow(on index: Int) throws {
        switch self.index(4) {
        case 0: if let id = try pickID("list", on: index, low: true) { try write(on: index, [("UPDATE list SET name = ? WHERE id = ?", [text(), id])]) }
        case 1: if let id = try pickID("item", on: index, low: true) { try write(on: index, [("UPDATE item SET done = 1 - done, title = ? WHERE id = ?", [text(), id])]) }
        case 2: if let id = try pickID("tag", on: index, low: true) { try write(on: index, [("UPDATE tag SET label = ? WHERE id = ?", [text(), id])]) }
        default: if let id = try pickID("counter", on: index, low: true) { try write(on: index, [("UPDATE counter SET value = value + 1 WHERE id = ?", [id])]) }
        }
    }

    func deleteRow(_ table: String, on index: Int) throws {
        let key = table == "event" ? "rowid" : "id"
        guard let id = try pickID(table, on: index) else { return }
        try write(on: index, [("DELETE FROM \(table) WHERE \(key) = ?", [id])])
    }

    /// Deletes an item: `blocked_by` (NO ACTION) refuses it while another item names it, unless
    /// the application clears those first, which it does half of the time.
    func deleteItem(on index: Int) throws {
        guard let item = try pickID("item", on: index) else { return }
        var statements: [Statement] = []
        if chance(2) { statements.append(("UPDATE item SET blocked_by = NULL WHERE blocked_by = ?", [item])) }
        statements.append(("DELETE FROM item WHERE id = ?", [item]))
        try write(on: index, statements)
    }

    /// Deletes a tag: `RESTRICT` refuses it while an item has it, unless the application removes
    /// the links first, which it does half of the time.
    func deleteTag(on index: Int) throws {
        guard let tag = try pickID("tag", on: index) else { return }
        var statements: [Statement] = []
        if chance(2) { statements.append(("DELETE FROM item_tag WHERE tag_id = ?", [tag])) }
        statements.append(("DELETE FROM tag WHERE id = ?", [tag]))
        try write(on: index, statements)
    }

    /// Runs one application transaction; a write SQLite refuses changes nothing. Records the rows
    /// that appeared (with their ids) and disappeared, by global identity.
    func write(on index: Int, _ statements: [Statement]) throws {
        let rows: (before: [RowKey: Int64?], after: [RowKey: Int64?])
        do {
            rows = try clients[index].database.write { db in
                let before = try Self.rows(db)
                for statement in statements { try db.execute(sql: statement.sql, arguments: statement.arguments) }
                return (before, try Self.rows(db))
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            refusedWrites += 1
            trace("\(clients[index].name) writes \(statements.map(\.sql)): refused, \(error.message ?? "")")
            return
        }
        localWrites += 1
        for (key, id) in rows.after where rows.before[key] == nil {
            inserted[key] = (index, id)
            // A join-table pair linked again after its deletion is a new creation, not a resurrection.
            if deletedByApp[key] != nil { recreated.insert(key) }
        }
        for key in rows.before.keys where rows.after[key] == nil && deletedByApp[key] == nil {
            deletedByApp[key] = index
        }
        trace("\(clients[index].name) writes \(statements.map(\.sql)) \(statements.map(\.arguments))")
    }

    // MARK: Syncs, whole stores, vacuum

    @discardableResult
    func sync(_ index: Int) async throws -> SyncReport {
        do {
            let report = try await clients[index].sync()
            syncs += 1
            if report.wholeStoreInstalled != nil { installs += 1 }
            trace("sync of \(clients[index].name): applied \(report.appliedChanges), pushed \(report.pushedChanges)")
            return report
        } catch {
            throw failure("sync of \(clients[index].name)", error)
        }
    }

    func faultedSync(_ index: Int) async throws {
        await injectFault()
        do {
            _ = try await clients[index].sync()
            syncs += 1
        } catch {
            trace("sync of \(clients[index].name) with an injected fault failed: \(error)")
        }
        await memory.heal()
        faulted += 1
    }

    func uploadWholeStore(from index: Int) async throws {
        do {
            _ = try await clients[index].manager.uploadWholeStore()
        } catch {
            throw failure("whole-store upload of \(clients[index].name)", error)
        }
        uploads += 1
        uploaders.insert(index)
    }

    /// Another client removed from the document, as `rollsync delete-client` does: its change sets
    /// and whole stores go, whoever has not applied them yet; it registers again at its next sync
    /// and must publish again what it wrote.
    func removeAnotherClient(from index: Int) async throws {
        let other = self.index(clients.count)
        guard other != index else { return }
        do {
            try await clients[index].application.removeClient(clients[other].name, from: TestClient.documentID)
        } catch {
            throw failure("removal of \(clients[other].name)", error)
        }
        uploaders.remove(other)
        removals += 1
    }

    /// Re-bases a client on a whole store while it has unpushed inserts, edits and deletions.
    func rebase(_ index: Int) async throws {
        guard !uploaders.isEmpty else { return }
        try insertList(on: index)
        try insertItem(on: index)
        try updateRow(on: index)
        try deleteItem(on: index)
        do {
            let report = try await clients[index].manager.downloadWholeStore(from: nil)
            #expect(report.wholeStoreInstalled != nil, "\(label), step \(step): a whole-store download installed nothing")
            installs += 1
            syncs += 1
        } catch {
            throw failure("whole-store download of \(clients[index].name)", error)
        }
    }

    func vacuum(from index: Int) async throws {
        let client = clients[index]
        try await uploadWholeStore(from: index)
        var options = VacuumOptions()
        if chance(2) {
            let others = try await client.application.clients(of: TestClient.documentID)
                .filter { $0.clientID != client.name && $0.lastSyncDate != nil }
                .sorted { $0.clientID.rawValue < $1.clientID.rawValue }
            if !others.isEmpty, let lastSync = others[self.index(others.count)].lastSyncDate {
                options = VacuumOptions(retireClientsSilentFor: 0, now: lastSync.addingTimeInterval(0.001))
            }
        }
        do {
            let report = try await client.manager.vacuum(options)
            vacuums += 1
            retirements += report.retiredClients.count
            for retired in report.retiredClients {
                if let retiredIndex = clients.firstIndex(where: { $0.name == retired }) { uploaders.remove(retiredIndex) }
            }
        } catch {
            throw failure("vacuum of \(client.name)", error)
        }
    }

    func injectFault() async {
        let primitives = InMemoryRemoteStore.Primitive.allCases
        await memory.failCall(1 + self.index(3), of: primitives[self.index(primitives.count)], timing: chance(2) ? .beforeEffect : .afterEffect)
    }

    /// Whether a moved id was reported (once per seed, at the step it happened).
    var movedIDReported = false

    /// No row an application inserted is at another id than SQLite gave it on that client.
    func checkIDs() throws {
        guard !movedIDReported else { return }
        for (index, client) in clients.enumerated() {
            let rows = try client.database.read(Self.rows)
            for (key, origin) in inserted where origin.client == index {
                if let id = rows[key], id != origin.id {
                    movedIDReported = true
                    Issue.record("\(label), step \(step): \(client.name)'s \(key) was given id \(origin.id.map(String.init) ?? "-"), now has \(id.map(String.init) ?? "-")")
                }
            }
        }
    }

    // MARK: The end

    func verify() throws {
        let reference = try clients[0].database.read(Self.dump)
        var present = Set<RowKey>()
        var removedByRules = Set<RowKey>()
        for client in clients {
            let (dump, rows, violations, integrity, removed) = try client.database.read { db in
                (
                    try Self.dump(db), try Self.rows(db), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
                    try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                    try Row.fetchAll(db, sql: "SELECT table_name, row_key FROM rollingsync_removed_rows")
                )
            }
            let onlyHere = Set(dump).subtracting(reference).sorted()
            let onlyThere = Set(reference).subtracting(dump).sorted()
            #expect(onlyHere.isEmpty && onlyThere.isEmpty, "\(label): \(client.name) differs: only here \(onlyHere.prefix(4)); only on client-0 \(onlyThere.prefix(4))")
            #expect(violations == 0, "\(label): \(client.name) fails foreign_key_check")
            #expect(integrity == ["ok"], "\(label): \(client.name) fails integrity_check")
            #expect(try !client.localStore.hasPendingChanges(), "\(label): \(client.name) still has pending changes")
            present.formUnion(rows.keys)
            for row in removed { removedByRules.insert(RowKey(table: row["table_name"], id: row["row_key"])) }
        }
        let lost = inserted.keys.filter { !present.contains($0) && deletedByApp[$0] == nil && !removedByRules.contains($0) && !recreated.contains($0) }.sorted()
        #expect(lost.isEmpty, "\(label): \(lost.count) inserted rows are gone: \(lost.prefix(6))")
        let resurrected = deletedByApp.keys.filter { present.contains($0) && !recreated.contains($0) }.sorted()
        #expect(resurrected.isEmpty, "\(label): \(resurrected.count) rows an application deleted exist again: \(resurrected.prefix(6))")
        let sameIDs = try clients[0].database.read { db in try Self.rows(db) }
        let agreeing = try clients.dropFirst().reduce(Set(sameIDs.keys)) { agreeing, client in
            let rows = try client.database.read(Self.rows)
            return agreeing.filter { rows[$0] == sameIDs[$0] }
        }
        print(
            """
            Integer key simulation, \(label): \(clients.count) clients, \(steps) steps (\(localWrites) application writes, \
            \(refusedWrites) refused, \(inserted.count) rows inserted, \(deletedByApp.count) deleted by applications), \(syncs) syncs, \
            \(faulted) with an injected fault, \(uploads) whole-store uploads, \(installs) installs, \(removals) removals, \(vacuums) vacuums \
            (\(retirements) clients retired); at the end \(sameIDs.count) rows, \(agreeing.count) at the same id on every client, \
            \(removedByRules.count) removed by rules
            """
        )
    }

    /// A deep verify of the remote is clean, and a restore of the present holds the clients' rows.
    func checkHistory() async throws {
        let report = try await clients[0].application.verify(document: TestClient.documentID, options: VerificationOptions(deep: true))
        #expect(report.isClean, "\(label): verify: \(report.problems.filter { $0.severity == .problem }.prefix(4))")
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("restored.sqlite")
        _ = try await clients[0].manager.restore(.at(Date()), to: file)
        let restored = try DatabaseQueue(path: file.path, configuration: AppDefinitionsTests.configuration)
        defer { try? restored.close() }
        let dump = try await restored.read(Self.dump)
        let reference = try await clients[0].database.read(Self.dump)
        #expect(dump == reference, "\(label): the restored present differs: \(Set(dump).symmetricDifference(reference).sorted().prefix(4))")
    }

    // MARK: Reading the databases

    /// The SQL expression of the global identity of the `table` row whose id is `column`.
    static func global(_ table: String, _ column: String) -> String {
        """
        coalesce((SELECT rollingsync_global FROM rollingsync_identities WHERE rollingsync_local = \(column)
            AND rollingsync_table = (SELECT id FROM rollingsync_tables WHERE name = '\(table)')), 'null')
        """
    }

    /// Every row of every table by global identity, with its id here (`nil` for the join table).
    static func rows(_ db: Database) throws -> [RowKey: Int64?] {
        var rows: [RowKey: Int64?] = [:]
        for (table, key) in [("list", "id"), ("item", "id"), ("tag", "id"), ("event", "rowid"), ("counter", "id")] {
            for row in try Row.fetchAll(db, sql: "SELECT \(global(table, key)) AS g, \(key) AS id FROM \(table)") {
                rows[RowKey(table: table, id: row["g"])] = .some(row["id"])
            }
        }
        // As the engine names the row (Docs/RemoteFormat.md): the identities quoted, comma-separated.
        for link in try String.fetchAll(db, sql: "SELECT quote(\(global("item", "item_id"))) || ',' || quote(\(global("tag", "tag_id"))) FROM item_tag") {
            rows[RowKey(table: "item_tag", id: link)] = .some(nil)
        }
        return rows
    }

    /// Every row as text, ids and references replaced by global identities.
    static func dump(_ db: Database) throws -> [String] {
        let queries = [
            "SELECT 'list', \(global("list", "id")), name, \(global("list", "parent_id")) FROM list",
            "SELECT 'item', \(global("item", "id")), \(global("list", "list_id")), \(global("item", "blocked_by")), title, done FROM item",
            "SELECT 'tag', \(global("tag", "id")), label FROM tag",
            "SELECT 'item_tag', \(global("item", "item_id")), \(global("tag", "tag_id")) FROM item_tag",
            "SELECT 'event', \(global("event", "rowid")), \(global("item", "item_id")), kind FROM event",
            "SELECT 'counter', \(global("counter", "id")), value FROM counter",
        ]
        return try queries.flatMap { sql in
            try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { "\($0)" }.joined(separator: " | ") }
        }.sorted()
    }

    /// An id of `table` (its rowid for `event`) the client has: one of the lowest with `low`.
    func pickID(_ table: String, on index: Int, low: Bool = false) throws -> Int64? {
        let key = table == "event" ? "rowid" : "id"
        let ids = try clients[index].database.read { db in try Int64.fetchAll(db, sql: "SELECT \(key) FROM \(table) ORDER BY \(key)") }
        guard !ids.isEmpty else { return nil }
        return low ? ids[self.index(min(ids.count, 3))] : ids[self.index(ids.count)]
    }

    func index(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
    func chance(_ n: Int) -> Bool { index(n) == 0 }
    func text() -> String { ["groceries", "work", "été", "重要", "🙂", "a'b", ""][index(7)] + " \(index(50))" }

    func trace(_ message: @autoclosure () -> String) {
        if tracing { print("[\(label) step \(step)] \(message())") }
    }

    func failure(_ what: String, _ error: any Error) -> TestFailure {
        TestFailure("\(label), step \(step): \(what) failed: \(error)")
    }
}
