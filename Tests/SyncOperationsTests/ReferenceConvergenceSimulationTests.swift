import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import TestSupport
import Testing

/// Seeded random histories on a schema whose tables reference each other — folders in folders,
/// notes in folders, attachments and comments of notes, tags with a unique label, a join table
/// with a composite key (whose keys change too) that comments reference by a composite foreign key —
/// with every kind of `ON DELETE` action: clients insert rows that refer to rows another client
/// has deleted meanwhile, re-parent notes, delete parents (SQLite cascades locally), collide on
/// the unique label, sync in random order (some syncs failing at a random remote call), upload
/// whole stores, re-base clients with unpushed edits on them, and vacuum with retirement so that
/// lagging clients must re-base. Then rounds of syncs until nothing moves, and:
/// - every database is identical, passes `PRAGMA foreign_key_check` (checked after every sync,
///   whole-store operation and vacuum too) and `integrity_check`, and has nothing pending;
/// - **nothing is lost**: every key any application inserted still exists, or an application
///   deleted it (its own deletion or SQLite's cascade of it, recorded by comparing the keys before
///   and after each application transaction), or the engine saved the row in some client's
///   `rollingsync_removed_rows` when a data rule removed it;
/// - **nothing is resurrected**: no key an application deleted exists anywhere.
///
/// A second group of seeds opens one client with `PRAGMA foreign_keys = OFF` (SQLite's default,
/// as another tool's connection would have it): its application keeps its data consistent itself
/// (it performs the cascades and refuses writes that would leave a dangling reference), and the
/// engine must not leave dangling references there either.
///
/// The normal suite runs 40 histories of 120 steps (see ``seeds``); `ROLLSYNC_SIMULATION_SEEDS=<n>`
/// runs seeds 1…n of both groups with histories of 500 steps instead. Each seed prints its counts;
/// `ROLLSYNC_SIMULATION_TRACE=<seed>` also prints every step of that seed, to follow a failure.
///
/// ``SchemaMigrationSimulationTests`` runs the same histories with clients migrating their schema.
@Suite("Reference convergence simulation")
struct ReferenceConvergenceSimulationTests {
    /// The schema; its join table `note_tag` has a composite key (a rowid table, or with
    /// `joinTableWithoutRowid` a `WITHOUT ROWID` one) and a generated column `id` that spells the
    /// key as the engine's row key does (Docs/RemoteFormat.md), so the histories name its rows
    /// like any other.
    static func schema(joinTableWithoutRowid: Bool) -> String {
        """
        CREATE TABLE folder (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT,
            parent_id TEXT REFERENCES folder(id) ON DELETE CASCADE);
        CREATE TABLE note (
            id TEXT PRIMARY KEY NOT NULL,
            folder_id TEXT REFERENCES folder(id) ON DELETE SET NULL,
            title TEXT,
            body BLOB);
        CREATE TABLE attachment (
            id TEXT PRIMARY KEY NOT NULL,
            note_id TEXT NOT NULL REFERENCES note(id) ON DELETE CASCADE,
            name TEXT);
        CREATE TABLE comment (
            id TEXT PRIMARY KEY NOT NULL, note_id TEXT REFERENCES note(id), text TEXT, tag_id TEXT,
            FOREIGN KEY (tag_id, note_id) REFERENCES note_tag (tag_id, note_id) ON DELETE SET NULL);
        CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, label TEXT UNIQUE);
        CREATE TABLE note_tag (
            note_id TEXT NOT NULL REFERENCES note(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tag(id) ON DELETE RESTRICT,
            id TEXT GENERATED ALWAYS AS (quote(note_id) || ',' || quote(tag_id)) VIRTUAL,
            PRIMARY KEY (note_id, tag_id))\(joinTableWithoutRowid ? " WITHOUT ROWID" : "");
        """
    }
    static let tables = ["folder", "note", "attachment", "comment", "tag", "note_tag"]

    static var longRun: Bool { ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"] != nil }

    /// Seeds with foreign keys on everywhere: 30 by default. With the other group's 10, a failure
    /// that one history in twenty meets shows in a default run with a probability of 87 %
    /// (1 − 0.95⁴⁰); a long run with `ROLLSYNC_SIMULATION_SEEDS=60` makes it over 99.8 %.
    /// `ROLLSYNC_SIMULATION_SEED=<n>` together with it replays seed n alone (in every group).
    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEED"], let seed = UInt64(text) {
            return [seed]
        }
        if let text = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_SEEDS"], let count = UInt64(text), count > 0 {
            return Array(1...count)
        }
        return Array(1...30)
    }

    /// Seeds of the group with foreign keys off on one client.
    static var foreignKeysOffSeeds: [UInt64] {
        longRun ? seeds : Array(101...110)
    }

    static var steps: Int { longRun ? 500 : 120 }

    @Test("clients converge with references, cascades and a unique label, nothing lost or resurrected", arguments: seeds)
    func clientsConverge(seed: UInt64) async throws {
        try await ReferenceSimulation(seed: seed, steps: Self.steps, foreignKeysOffOnFirstClient: false).run()
    }

    @Test("the same with foreign keys off on one client's connection", arguments: foreignKeysOffSeeds)
    func clientsConvergeWithForeignKeysOff(seed: UInt64) async throws {
        try await ReferenceSimulation(seed: seed, steps: Self.steps, foreignKeysOffOnFirstClient: true).run()
    }
}

/// A row of an application table, by table and key.
struct RowKey: Hashable, Comparable, CustomStringConvertible {
    var table: String
    var id: String

    var description: String { "\(table) \(id)" }

    static func < (a: RowKey, b: RowKey) -> Bool { (a.table, a.id) < (b.table, b.id) }
}

/// The application's own refusal of a write, on a connection without foreign keys: the write
/// would have left a reference dangling, as SQLite would have refused it with foreign keys on.
private struct DanglingReferenceRefused: Error {}

/// One seeded history: the clients, what their applications did (keys inserted and deleted), and
/// the counts the closing line prints.
final class ReferenceSimulation {
    typealias Statement = (sql: String, arguments: StatementArguments)

    static let tables = ReferenceConvergenceSimulationTests.tables
    /// Few labels, so that clients insert the same label with different keys.
    static let labels = ["red", "green", "blue", "urgent", "später", "重要", "🙂 happy", "naïve"]
    static let titles = [
        "Courses à faire", "日本語のメモ", "Ünïcödé ✓", "👩‍💻 work", "Ελληνικά", "עברית ושלום", "Zürich → København",
        "e\u{301}cole", "tab\tand\nnewline", "quote ' and \"", "", "plain",
    ]

    let seed: UInt64
    let steps: Int
    /// The seed and the variant, for every message.
    let label: String
    /// Whether every step is printed (`ROLLSYNC_SIMULATION_TRACE=<seed>`), to follow a failing seed.
    let tracing: Bool
    var random: SplitMix64
    let memory: InMemoryRemoteStore
    let clients: [TestClient]
    /// Whether each client's connection enforces foreign keys.
    let foreignKeys: [Bool]

    /// The step being run (0 before the first, `steps + 1` while settling).
    var step = 0
    /// The counter that makes every inserted key unique.
    var keyCounter = 0
    /// Every key an application inserted, with the client that inserted it.
    var inserted: [RowKey: String] = [:]
    /// The inserted keys of each table, oldest first (the first few are the hot rows).
    var insertionOrder: [String: [String]] = [:]
    /// Every key an application deleted (its own statement or SQLite's cascade of it), with the
    /// client whose application did.
    var deletedByApp: [RowKey: String] = [:]
    /// Clients that have a whole store no vacuum can have removed.
    var uploaders: Set<Int> = []
    var referenceViolationReported = false
    /// The clients' schema migrations, in the histories that have them (see ``SchemaEvolution``).
    var evolution: SchemaEvolution?
    /// By client index, the writers whose sets that client's last sync held back.
    var heldBackWriters: [Int: Set<String>] = [:]

    // Counts for the closing line.
    var localWrites = 0
    var refusedWrites = 0
    var writesToDeletedParents = 0
    var syncs = 0
    var faultedOperations = 0
    var failedFaultedOperations = 0
    var conflicts = 0
    var uploads = 0
    var installs = 0
    var rebasesWithLocalChanges = 0
    var vacuums = 0
    var vacuumedSets = 0
    var retirements = 0
    var relinks = 0

    init(seed: UInt64, steps: Int, foreignKeysOffOnFirstClient: Bool, schemaMigrations: Bool = false) throws {
        self.seed = seed
        self.steps = steps
        label = "seed \(seed)" + (foreignKeysOffOnFirstClient ? " (foreign keys off on client-0)" : "") + (schemaMigrations ? " (schema migrations)" : "")
        random = SplitMix64(seed: seed)
        tracing = ProcessInfo.processInfo.environment["ROLLSYNC_SIMULATION_TRACE"] == "\(seed)"
        let remote = try TestRemote(.memory)
        memory = try remote.faults
        let clientCount = 3 + Int(random.next() % 3)
        foreignKeys = (0..<clientCount).map { !(foreignKeysOffOnFirstClient && $0 == 0) }
        clients = try (0..<clientCount).map { index in
            try TestClient(
                "client-\(index)", remote: remote.store, schema: ReferenceConvergenceSimulationTests.schema(joinTableWithoutRowid: seed % 2 == 0),
                tables: Self.tables, foreignKeys: foreignKeysOffOnFirstClient ? index != 0 : true,
                lastSyncRecordInterval: TestClient.lastSyncRecordInterval(ofSimulatedClient: index)
            )
        }
        evolution = schemaMigrations ? SchemaEvolution(clientCount: clientCount) : nil
    }

    // MARK: The history

    func run() async throws {
        for (index, client) in clients.enumerated() {
            let enforced = try client.value("PRAGMA foreign_keys") == 1.databaseValue
            #expect(enforced == foreignKeys[index], "\(label): PRAGMA foreign_keys of \(client.name) is not as configured")
            try await sync(index, "registration sync")
        }
        for number in 1...steps {
            step = number
            try await performStep()
        }
        step = steps + 1
        if evolution != nil { try await migrateRemainingClients() }
        try await settle()
        try verify()
        try await checkHistory()
    }

    /// Once every client holds the same data, the remote's history must agree: a deep verify
    /// finds no problem (faults, re-bases, vacuums and retirements included), and a restore of the
    /// present rebuilds exactly what the clients hold.
    func checkHistory() async throws {
        let report = try await clients[0].application.verify(document: TestClient.documentID, options: VerificationOptions(deep: true))
        #expect(report.isClean, "\(label): verify after settling: \(report.problems.filter { $0.severity == .problem }.prefix(4))")
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("restored.sqlite")
        let restore: RestoreReport
        do {
            restore = try await clients[0].manager.restore(.at(Date()), to: file)
        } catch {
            // Nothing in these histories removes history that no whole store holds.
            Issue.record("\(label): the present cannot be restored (verify says \(report.restorableRange)): \(error)")
            return
        }
        print(
            "History check, \(label): verify found \(report.problems.count) notices; the present restored from "
                + "\(restore.base.map { _ in "a whole store" } ?? "the beginning") + \(restore.appliedSets) change sets"
                + (restore.reinstatedRows == 0 ? "" : ", \(restore.reinstatedRows) rows the replay's rules removed put back")
        )
        let restored = try DatabaseQueue(path: file.path)
        defer { try? restored.close() }
        let (dump, violations) = try await restored.read { db in (try Self.dump(db), try Self.referenceViolations(db)) }
        let reference = try Self.dump(of: clients[0])
        #expect(
            dump == reference,
            "\(label): the restored present differs: only restored \(Set(dump).subtracting(reference).sorted().prefix(4)); only on the clients \(Set(reference).subtracting(dump).sorted().prefix(4))"
        )
        #expect(violations.isEmpty, "\(label): the restored present fails PRAGMA foreign_key_check: \(violations.sorted().prefix(4))")
    }

    func performStep() async throws {
        let index = self.index(clients.count)
        if evolution != nil, try await performSchemaStep(on: index) { return }
        switch self.index(100) {
        case 0..<7: try insertFolder(on: index)
        case 7..<18: try insertNote(on: index)
        case 18..<24: try insertAttachment(on: index)
        case 24..<29: try insertComment(on: index)
        case 29..<34: try insertTag(on: index)
        case 34..<42: try insertNoteTag(on: index)
        case 42..<46: try reparentNote(on: index)
        case 46..<48: try moveFolder(on: index)
        case 48..<58: try updateHotRow(on: index)
        case 58..<62: try deleteFolder(on: index)
        case 62..<67: try deleteNote(on: index)
        case 67..<70: try deleteTag(on: index)
        case 70..<73: try deleteLeaf(on: index)
        case 73..<89: try await sync(index, "sync")
        case 89..<94: try await faultedSync(index)
        case 94..<96: try await uploadWholeStore(from: index)
        case 96..<98: try await rebaseOnWholeStore(index)
        default: try await vacuum(from: index)
        }
    }

    /// Heals the remote, then syncs every client in turn until a round applies, pushes and
    /// installs nothing.
    func settle() async throws {
        await memory.heal()
        var rounds = 0
        var moved = true
        while moved && rounds < 8 {
            moved = false
            rounds += 1
            for index in clients.indices {
                // A sync refused for the schema (`nil`) cannot happen here: every client migrated.
                let report = try await sync(index, "closing sync of round \(rounds)")
                moved = moved || report.map { $0.appliedSets > 0 || $0.pushedChanges > 0 || $0.wholeStoreInstalled != nil } ?? true
            }
        }
        #expect(!moved, "\(label): still changing after \(rounds) rounds of syncs")
    }

    // MARK: Application writes

    func insertFolder(on index: Int) throws {
        let parent = chance(2) ? try pick("folder", on: index) : nil
        try write(on: index, [("INSERT INTO folder VALUES (?, ?, ?)", [newKey("f", index), text(), parent])], parents: [("folder", parent)])
    }

    func insertNote(on index: Int) throws {
        let folder = chance(7) ? nil : try pick("folder", on: index)
        try write(
            on: index, [("INSERT INTO note (id, folder_id, title, body) VALUES (?, ?, ?, ?)", [newKey("n", index), folder, title(), body()])],
            parents: [("folder", folder)]
        )
    }

    func insertAttachment(on index: Int) throws {
        guard let note = try pick("note", on: index) else { return }
        try write(on: index, [("INSERT INTO attachment VALUES (?, ?, ?)", [newKey("a", index), note, text()])], parents: [("note", note)])
    }

    func insertComment(on index: Int) throws {
        let note = chance(5) ? nil : try pick("note", on: index)
        // Half of the comments on a note are about one of its tags (a composite foreign key).
        let link = try note.flatMap { note in
            String.fromDatabaseValue(try clients[index].value("SELECT tag_id FROM note_tag WHERE note_id = ? ORDER BY tag_id LIMIT 1", [note]))
        }
        let tag = chance(2) ? link : nil
        try write(
            on: index, [("INSERT INTO comment (id, note_id, text, tag_id) VALUES (?, ?, ?, ?)", [newKey("c", index), note, text(), tag])],
            parents: [("note", note)] + (tag.map { [("note_tag", "'\(note ?? "")','\($0)'")] } ?? [])
        )
    }

    /// A tag with a label of the small set (or NULL, which never collides); a label this client
    /// already has is refused locally.
    func insertTag(on index: Int) throws {
        try write(on: index, [("INSERT INTO tag VALUES (?, ?)", [newKey("t", index), tagLabel()])])
    }

    /// A new link of a note and a tag, or (one time in three) an existing link moved to another
    /// tag: a change of the composite key, which is the old link's deletion and the new one's
    /// creation. Only pairs never linked before, so that no key an application deleted comes back.
    func insertNoteTag(on index: Int) throws {
        guard let note = try pick("note", on: index), let tag = try pick("tag", on: index) else { return }
        guard inserted[RowKey(table: "note_tag", id: "'\(note)','\(tag)'")] == nil else { return }
        let link = String.fromDatabaseValue(try clients[index].value("SELECT id FROM note_tag WHERE note_id = ? ORDER BY id LIMIT 1", [note]))
        if chance(2), let link {
            relinks += 1
            try write(on: index, [("UPDATE note_tag SET tag_id = ? WHERE id = ?", [tag, link])], parents: [("tag", tag)])
            return
        }
        try write(
            on: index, [("INSERT INTO note_tag (note_id, tag_id) VALUES (?, ?)", [note, tag])],
            parents: [("note", note), ("tag", tag)]
        )
    }

    func reparentNote(on index: Int) throws {
        guard let note = try hotOrAny("note", on: index) else { return }
        let folder = chance(6) ? nil : try pick("folder", on: index)
        try write(on: index, [("UPDATE note SET folder_id = ? WHERE id = ?", [folder, note])], parents: [("folder", folder)])
    }

    /// Moves a folder under another (cycles included: they are valid data, and a deletion
    /// cascades around them).
    func moveFolder(on index: Int) throws {
        guard let folder = try hotOrAny("folder", on: index) else { return }
        let parent = chance(3) ? nil : try pick("folder", on: index)
        try write(on: index, [("UPDATE folder SET parent_id = ? WHERE id = ?", [parent, folder])], parents: [("folder", parent)])
    }

    /// An edit of one of the first rows of a table, so that clients edit the same cells concurrently.
    func updateHotRow(on index: Int) throws {
        switch self.index(4) {
        case 0:
            guard let note = try hotOrAny("note", on: index) else { return }
            try write(on: index, [("UPDATE note SET title = ? WHERE id = ?", [title(), note])])
        case 1:
            guard let note = try hotOrAny("note", on: index) else { return }
            try write(on: index, [("UPDATE note SET body = ? WHERE id = ?", [body(), note])])
        case 2:
            guard let tag = try hotOrAny("tag", on: index) else { return }
            try write(on: index, [("UPDATE tag SET label = ? WHERE id = ?", [tagLabel(), tag])])
        default:
            guard let folder = try hotOrAny("folder", on: index) else { return }
            try write(on: index, [("UPDATE folder SET name = ? WHERE id = ?", [text(), folder])])
        }
    }

    /// Deletes a folder: SQLite deletes its subfolders and sets its notes' `folder_id` to NULL
    /// (the application does both itself without foreign keys).
    func deleteFolder(on index: Int) throws {
        guard let folder = try pick("folder", on: index) else { return }
        if foreignKeys[index] {
            try write(on: index, [("DELETE FROM folder WHERE id = ?", [folder])])
        } else {
            let subtree = "WITH RECURSIVE doomed(id) AS (SELECT ? UNION SELECT folder.id FROM folder JOIN doomed ON folder.parent_id = doomed.id)"
            try write(
                on: index,
                [
                    ("\(subtree) UPDATE note SET folder_id = NULL WHERE folder_id IN (SELECT id FROM doomed)", [folder]),
                    ("\(subtree) DELETE FROM folder WHERE id IN (SELECT id FROM doomed)", [folder]),
                ]
            )
        }
    }

    /// Deletes a note: SQLite deletes its attachments and tag links; its comments (`NO ACTION`)
    /// make the deletion fail unless the application deletes or detaches them first, which it
    /// does half of the time.
    func deleteNote(on index: Int) throws {
        guard let note = try pick("note", on: index) else { return }
        var statements: [Statement] = []
        switch self.index(4) {
        case 0: statements.append(("DELETE FROM comment WHERE note_id = ?", [note]))
        case 1: statements.append(("UPDATE comment SET note_id = NULL WHERE note_id = ?", [note]))
        default: break
        }
        if !foreignKeys[index] {
            statements.append(("DELETE FROM attachment WHERE note_id = ?", [note]))
            statements.append(("DELETE FROM note_tag WHERE note_id = ?", [note]))
        }
        statements.append(("DELETE FROM note WHERE id = ?", [note]))
        try write(on: index, statements)
    }

    /// Deletes a tag: `RESTRICT` refuses it while a note is tagged with it, unless the
    /// application removes the links first, which it does half of the time.
    func deleteTag(on index: Int) throws {
        guard let tag = try pick("tag", on: index) else { return }
        var statements: [Statement] = []
        if chance(2) {
            statements.append(("DELETE FROM note_tag WHERE tag_id = ?", [tag]))
        }
        statements.append(("DELETE FROM tag WHERE id = ?", [tag]))
        try write(on: index, statements)
    }

    func deleteLeaf(on index: Int) throws {
        let table = ["attachment", "comment", "note_tag"][self.index(3)]
        guard let key = try pick(table, on: index) else { return }
        try write(on: index, [("DELETE FROM \(table) WHERE id = ?", [key])])
    }

    /// Runs one application transaction on a client, as the application would; if SQLite refuses
    /// it (a constraint), or, on a connection without foreign keys, it would leave a new dangling
    /// reference, nothing changes and the write is skipped. Records the keys that appeared as
    /// inserted and the keys that disappeared (the statements' deletions and SQLite's cascades)
    /// as deleted by an application.
    /// - Parameter parents: the rows the write refers to, to count writes that refer to a row
    ///   another client's application has already deleted.
    func write(on index: Int, _ statements: [Statement], parents: [(table: String, key: String?)] = []) throws {
        let checksItsOwnReferences = !foreignKeys[index]
        let keys: (before: Set<RowKey>, after: Set<RowKey>)
        do {
            keys = try clients[index].database.write { db in
                let before = try Self.keys(db)
                let violationsBefore = checksItsOwnReferences ? try Self.referenceViolations(db) : []
                for statement in statements {
                    try db.execute(sql: statement.sql, arguments: statement.arguments)
                }
                if checksItsOwnReferences, !(try Self.referenceViolations(db)).isSubset(of: violationsBefore) {
                    throw DanglingReferenceRefused()
                }
                return (before, try Self.keys(db))
            }
        } catch is DanglingReferenceRefused {
            refusedWrites += 1
            trace("\(clients[index].name) writes \(statements.map(\.sql)) \(statements.map(\.arguments)): refused, it would leave a dangling reference")
            return
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            refusedWrites += 1
            trace("\(clients[index].name) writes \(statements.map(\.sql)) \(statements.map(\.arguments)): refused, \(error.message ?? "")")
            return
        } catch {
            throw failure("\(clients[index].name)'s application write \(statements.map(\.sql))", error)
        }
        localWrites += 1
        if parents.contains(where: { parent in parent.key.map { deletedByApp[RowKey(table: parent.table, id: $0)] != nil } ?? false }) {
            writesToDeletedParents += 1
        }
        let client = clients[index].name.rawValue
        trace(
            "\(client) writes \(statements.map(\.sql)) \(statements.map(\.arguments)): inserted \(keys.after.subtracting(keys.before).sorted()), deleted \(keys.before.subtracting(keys.after).sorted())"
        )
        for key in keys.after.subtracting(keys.before).sorted() {
            inserted[key] = client
            insertionOrder[key.table, default: []].append(key.id)
        }
        for key in keys.before.subtracting(keys.after) where deletedByApp[key] == nil {
            deletedByApp[key] = client
        }
    }

    // MARK: Syncs, whole stores, vacuum

    /// A sync that must succeed; `nil` only if it had to re-base on a whole store and every usable
    /// one was written with a schema this client has not migrated to yet (see ``SchemaEvolution``).
    @discardableResult
    func sync(_ index: Int, _ what: String) async throws -> SyncReport? {
        let report: SyncReport
        do {
            report = try await clients[index].sync()
        } catch where refusedForNewerSchema(error, on: index, what) {
            return nil
        } catch {
            throw failure("\(what) of \(clients[index].name)", error)
        }
        syncs += 1
        try record(report, of: index, after: what)
        return report
    }

    /// A sync that fails at a random remote call, before or after its effect (or succeeds if the
    /// call never comes); a later sync must make up for it.
    func faultedSync(_ index: Int) async throws {
        await injectFault()
        let result: Result<SyncReport, any Error>
        do {
            result = .success(try await clients[index].sync())
        } catch {
            result = .failure(error)
        }
        await memory.heal()
        faultedOperations += 1
        switch result {
        case .success(let report):
            syncs += 1
            try record(report, of: index, after: "sync with an injected fault that did not strike")
        case .failure(let error):
            failedFaultedOperations += 1
            trace("sync of \(clients[index].name) with an injected fault failed: \(error)")
        }
    }

    /// Uploads a whole store (a quarter of the time with an injected remote fault).
    func uploadWholeStore(from index: Int) async throws {
        let faulted = chance(4)
        if faulted { await injectFault() }
        do {
            _ = try await clients[index].manager.uploadWholeStore()
            uploads += 1
            uploaders.insert(index)
            trace("\(clients[index].name) uploaded a whole store\(faulted ? " despite an injected fault" : "")")
            try checkReferences(of: index, after: "whole-store upload")
        } catch where faulted {
            failedFaultedOperations += 1
            trace("whole-store upload of \(clients[index].name) with an injected fault failed: \(error)")
        } catch where refusedForNewerSchema(error, on: index, "whole-store upload") {
            // Its sync had to re-base on a whole store of a newer schema.
        } catch {
            throw failure("whole-store upload of \(clients[index].name)", error)
        }
        if faulted {
            await memory.heal()
            faultedOperations += 1
        }
    }

    /// Re-bases an existing client on a whole store while it has unpushed inserts, updates and
    /// deletions (a fifth of the time with an injected remote fault, after which the client still
    /// has them).
    func rebaseOnWholeStore(_ index: Int) async throws {
        guard !uploaders.isEmpty else { return }
        try insertNote(on: index)
        try (chance(2) ? reparentNote(on: index) : updateHotRow(on: index))
        switch self.index(3) {
        case 0: try deleteNote(on: index)
        case 1: try deleteFolder(on: index)
        default: try deleteLeaf(on: index)
        }
        let others = uploaders.subtracting([index]).sorted()
        let source = !others.isEmpty && chance(3) ? clients[others[self.index(others.count)]].name : nil
        let hadLocalChanges = try clients[index].localStore.hasPendingChanges()
        let before = evolution != nil ? try schemaRefusalState(of: index) : nil
        trace("\(clients[index].name) re-bases on \(source.map { "\($0)'s" } ?? "the newest") whole store, with local changes: \(hadLocalChanges)")
        let faulted = chance(5)
        if faulted { await injectFault() }
        do {
            let report = try await clients[index].manager.downloadWholeStore(from: source)
            #expect(report.wholeStoreInstalled != nil, "\(label), step \(step): a whole-store download installed nothing")
            if hadLocalChanges { rebasesWithLocalChanges += 1 }
            syncs += 1
            try record(report, of: index, after: "whole-store download")
        } catch where faulted {
            failedFaultedOperations += 1
            trace("whole-store download of \(clients[index].name) with an injected fault failed: \(error)")
        } catch where refusedForNewerSchema(error, on: index, "whole-store download") {
            try checkUntouched(index, since: before)
        } catch {
            throw failure("whole-store download of \(clients[index].name) from \(source.map { "\($0)" } ?? "the newest unit")", error)
        }
        if faulted {
            await memory.heal()
            faultedOperations += 1
        }
    }

    /// Vacuums from a client, usually after uploading its whole store, and two times in three
    /// retiring a random other client (and any that synced even earlier), which must then re-base
    /// on a whole store at its next sync.
    func vacuum(from index: Int) async throws {
        let client = clients[index]
        if !chance(4) {
            try await uploadWholeStore(from: index)
        }
        var options = VacuumOptions()
        if !chance(3) {
            let others: [DocumentClientSummary]
            do {
                others = try await client.application.clients(of: TestClient.documentID)
                    .filter { $0.clientID != client.name && $0.lastSyncDate != nil }
                    .sorted { $0.clientID.rawValue < $1.clientID.rawValue }
            } catch {
                throw failure("listing the clients from \(client.name)", error)
            }
            if !others.isEmpty, let lastSync = others[self.index(others.count)].lastSyncDate {
                options = VacuumOptions(retireClientsSilentFor: 0, now: lastSync.addingTimeInterval(0.001))
            }
        }
        let faulted = chance(5)
        if faulted { await injectFault() }
        do {
            let report = try await client.manager.vacuum(options)
            trace(
                "vacuum of \(client.name) (\(options)): removed \(report.removedSets.count) sets, retired \(report.retiredClients), removed whole stores \(report.removedWholeStores), holds \(report.holds)"
            )
            vacuums += 1
            vacuumedSets += report.removedSets.count
            retirements += report.retiredClients.count
            for retired in report.retiredClients {
                if let retiredIndex = clients.firstIndex(where: { $0.name == retired }) { uploaders.remove(retiredIndex) }
            }
            try checkReferences(of: index, after: "vacuum")
        } catch where faulted {
            failedFaultedOperations += 1
            trace("vacuum of \(client.name) with an injected fault failed: \(error)")
            // A vacuum interrupted after it retired clients may have removed their whole stores.
            if options.retireClientsSilentFor != nil { uploaders = uploaders.intersection([index]) }
        } catch where refusedForNewerSchema(error, on: index, "vacuum") {
            // Its sync had to re-base on a whole store of a newer schema.
        } catch {
            throw failure("vacuum of \(client.name)", error)
        }
        if faulted {
            await memory.heal()
            faultedOperations += 1
        }
    }

    /// Makes one of the next few calls of a random remote primitive fail, before or after its effect.
    func injectFault() async {
        let primitives = InMemoryRemoteStore.Primitive.allCases
        let primitive = primitives[self.index(primitives.count)]
        let timing: InMemoryRemoteStore.FailureTiming = chance(2) ? .beforeEffect : .afterEffect
        await memory.failCall(1 + self.index(3), of: primitive, timing: timing)
    }

    /// Counts what a sync did and checks the client's references right after it.
    func record(_ report: SyncReport, of index: Int, after what: String) throws {
        trace(
            """
            \(what) of \(clients[index].name): applied \(report.appliedChanges) changes of \(report.appliedSets) sets, pushed \(report.pushedChanges)\
            \(report.wholeStoreInstalled.map { ", installed \($0.client)'s whole store, re-based \($0.installation.rebasedChanges) changes" } ?? "")\
            \(report.warnings.isEmpty ? "" : "; warnings \(report.warnings)")
            """
        )
        conflicts += report.conflicts.count
        if report.wholeStoreInstalled != nil { installs += 1 }
        if evolution != nil { checkSchemaEffects(of: report, on: index) }
        heldBackWriters[index] = Set(report.warnings.compactMap { warning -> String? in
            switch warning {
            case .unreadableChangeSet(_, let client, _), .upgradeRequired(_, _, let client, _), .waitsForHeldBackSets(_, let client, _): client.rawValue
            default: nil
            }
        })
        try checkReferences(of: index, after: what)
    }

    /// Records an issue (once per seed, for the first client and step) if a client's data has a
    /// dangling reference after the engine wrote to it.
    func checkReferences(of index: Int, after what: String) throws {
        guard !referenceViolationReported else { return }
        var violations = try clients[index].database.read { db in try Self.danglingReferences(db) }
        if evolution != nil { violations = excludingReferencesIntoHeldBackSets(violations, on: index, after: what) }
        if !violations.isEmpty {
            referenceViolationReported = true
            Issue.record(
                Comment(
                    rawValue: "\(label), step \(step): after a \(what), \(clients[index].name) has dangling references: \(violations.prefix(6))"
                )
            )
        }
    }

    // MARK: The end

    func verify() throws {
        let reference = try Self.dump(of: clients[0])
        for client in clients.dropFirst() {
            let dump = try Self.dump(of: client)
            // Keys are unique, so the dumps are equal exactly when no row is in only one of them.
            let onlyHere = Set(dump).subtracting(reference).sorted()
            let onlyInReference = Set(reference).subtracting(dump).sorted()
            #expect(
                onlyHere.isEmpty && onlyInReference.isEmpty,
                "\(label): \(client.name) differs from client-0: only in \(client.name): \(onlyHere.prefix(6)); only in client-0: \(onlyInReference.prefix(6))"
            )
        }
        for client in clients {
            let (violations, integrity) = try client.database.read { db in
                (try Self.referenceViolations(db), try String.fetchAll(db, sql: "PRAGMA integrity_check"))
            }
            #expect(violations.isEmpty, "\(label): \(client.name) fails PRAGMA foreign_key_check: \(violations.sorted().prefix(6))")
            #expect(integrity == ["ok"], "\(label): \(client.name) fails PRAGMA integrity_check: \(integrity.prefix(6))")
            #expect(try !client.localStore.hasPendingChanges(), "\(label): \(client.name) still has pending changes")
        }

        var present = Set<RowKey>()
        for client in clients {
            present.formUnion(try client.database.read { db in try Self.keys(db) })
        }
        var removedByRules = Set<RowKey>()
        var removedRowsTables = 0
        for client in clients {
            guard let removed = try Self.removedRows(of: client) else { continue }
            removedRowsTables += 1
            removedByRules.formUnion(removed)
        }
        let lost = inserted.keys.filter { !present.contains($0) && deletedByApp[$0] == nil && !removedByRules.contains($0) }.sorted()
        #expect(
            lost.isEmpty,
            """
            \(label): \(lost.count) inserted rows are gone, though no application deleted them and no client saved them \
            in rollingsync_removed_rows (\(removedRowsTables) of \(clients.count) clients have that table): \
            \(lost.prefix(10).map { "\($0) (inserted by \(inserted[$0] ?? "?"))" })
            """
        )
        let resurrected = deletedByApp.keys.filter { present.contains($0) }.sorted()
        #expect(
            resurrected.isEmpty,
            "\(label): \(resurrected.count) rows an application deleted exist again: \(resurrected.prefix(10).map { "\($0) (deleted by \(deletedByApp[$0] ?? "?"))" })"
        )

        let rows = try clients[0].database.read { db in try Self.keys(db).count }
        print(
            """
            Reference convergence simulation, \(label): \(clients.count) clients, \(steps) steps \
            (\(localWrites) application writes, \(writesToDeletedParents) of them referring to a row another client had deleted, \
            \(refusedWrites) refused locally, \(deletedByApp.count) rows deleted by applications), \
            \(syncs) syncs, \(faultedOperations) operations with an injected fault (\(failedFaultedOperations) failed), \
            \(conflicts) conflicts, \(uploads) whole-store uploads, \(installs) whole-store installs \
            (\(rebasesWithLocalChanges) re-bases with unpushed changes), \(vacuums) vacuums (\(vacuumedSets) sets removed, \
            \(retirements) clients retired), \(relinks) join-table key changes; at the end \(rows) rows, \(removedByRules.count) rows removed by rules\
            \(try schemaMigrationSummary())
            """
        )
    }

    // MARK: Reading the databases

    /// The application tables the database has: ``tables``, and those a migration added.
    static func applicationTables(_ db: Database) throws -> [String] {
        try tables + SchemaEvolution.addedTables.filter { try db.tableExists($0) }
    }

    /// Every key of every application table.
    static func keys(_ db: Database) throws -> Set<RowKey> {
        var keys = Set<RowKey>()
        for table in try applicationTables(db) {
            for id in try String.fetchAll(db, sql: "SELECT id FROM \(table)") {
                keys.insert(RowKey(table: table, id: id))
            }
        }
        return keys
    }

    /// The rows of `PRAGMA foreign_key_check`, as text.
    static func referenceViolations(_ db: Database) throws -> Set<String> {
        Set(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map(\.description))
    }

    /// A row of `PRAGMA foreign_key_check`, with the referring row and the key it refers to.
    struct DanglingReference: Comparable, CustomStringConvertible {
        var row: String
        var parent: RowKey

        var description: String { "\(row) → \(parent)" }

        static func < (a: Self, b: Self) -> Bool { (a.row, a.parent) < (b.row, b.parent) }
    }

    /// The rows of `PRAGMA foreign_key_check`, each with the referring row, to follow a failure.
    static func danglingReferences(_ db: Database) throws -> [DanglingReference] {
        try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { violation in
            let table: String = violation["table"]
            let rowID: Int64? = violation["rowid"]
            let column = try String.fetchOne(
                db, sql: "SELECT \"from\" FROM pragma_foreign_key_list(?) WHERE id = ?", arguments: [table, violation["fkid"]]
            )
            let row = try rowID.flatMap { try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE rowid = ?", arguments: [$0]) }
            let key = column.flatMap { column in row.flatMap { $0[column] as String? } } ?? "?"
            return DanglingReference(row: "\(table) \(row.map(\.description) ?? "rowid \(rowID.map(String.init) ?? "none")")", parent: RowKey(table: violation["parent"], id: key))
        }.sorted()
    }

    /// The rows a client's engine removed by a rule; `nil` if it has no `rollingsync_removed_rows`.
    static func removedRows(of client: TestClient) throws -> Set<RowKey>? {
        try client.database.read { db in
            guard try db.tableExists("rollingsync_removed_rows") else { return nil }
            // A row of a table that was not synced yet has no key there: its `id` is in its values.
            let rows = try Row.fetchAll(
                db, sql: "SELECT table_name, coalesce(row_key, json_extract(row_values, '$.id')) AS row_key FROM rollingsync_removed_rows"
            )
            return Set(
                rows.map { row in
                    let key: DatabaseValue = row["row_key"]
                    let id: String =
                        switch key.storage {
                        case .string(let text): text
                        case .blob(let data): String(decoding: data, as: UTF8.self)
                        default: key.description
                        }
                    return RowKey(table: row["table_name"], id: id)
                }
            )
        }
    }

    /// Every row of every application table as text, each blob as its size and 64-bit FNV-1a
    /// digest: two clients hold the same data exactly when their dumps are equal (``TestClient/dump(tables:)``
    /// shows only a blob's size).
    static func dump(of client: TestClient) throws -> [String] {
        try client.database.read(dump)
    }

    /// Every row of every application table of `db` as text (see ``dump(of:)``).
    static func dump(_ db: Database) throws -> [String] {
        try applicationTables(db).flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY id").map { row in
                    let cells = row.map { column, value in
                        if case .blob(let data) = value.storage {
                            return "\(column):blob(\(data.count) bytes, fnv \(String(digest(data), radix: 16)))"
                        }
                        return "\(column):\(value)"
                    }
                    return "\(table) \(cells.joined(separator: " "))"
                }
        }
    }

    /// The 64-bit FNV-1a digest of `data`.
    static func digest(_ data: Data) -> UInt64 {
        data.reduce(0xCBF2_9CE4_8422_2325) { hash, byte in (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }

    /// The keys of `table` the client has, in order.
    func localKeys(_ table: String, on index: Int) throws -> [String] {
        try clients[index].database.read { db in try String.fetchAll(db, sql: "SELECT id FROM \(table) ORDER BY id") }
    }

    /// A key of `table` the client still has: half of the time, if it has any, one that another
    /// client's application has already deleted (this client has not synced that yet).
    func pick(_ table: String, on index: Int) throws -> String? {
        let local = try localKeys(table, on: index)
        guard !local.isEmpty else { return nil }
        let deletedElsewhere = local.filter { deletedByApp[RowKey(table: table, id: $0)] != nil }
        if !deletedElsewhere.isEmpty && chance(2) {
            return deletedElsewhere[self.index(deletedElsewhere.count)]
        }
        return local[self.index(local.count)]
    }

    /// One of the first four keys ever inserted in `table` that the client still has, or else any.
    func hotOrAny(_ table: String, on index: Int) throws -> String? {
        let local = Set(try localKeys(table, on: index))
        let hot = (insertionOrder[table] ?? []).prefix(4).filter { local.contains($0) }
        if !hot.isEmpty && !chance(4) {
            return hot[self.index(hot.count)]
        }
        return try pick(table, on: index)
    }

    // MARK: Random values

    func index(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }

    /// True one time in `n`.
    func chance(_ n: Int) -> Bool { index(n) == 0 }

    /// A key never used before, e.g. `n17.c2` for the 17th key, a note of client-2.
    func newKey(_ prefix: String, _ index: Int) -> String {
        keyCounter += 1
        return "\(prefix)\(keyCounter).c\(index)"
    }

    func text() -> String {
        "\(Self.titles[index(Self.titles.count)]) \(random.next() % 1000)"
    }

    /// A title, sometimes NULL.
    func title() -> String? {
        chance(6) ? nil : text()
    }

    func tagLabel() -> String? {
        chance(10) ? nil : Self.labels[index(Self.labels.count)]
    }

    /// A body: NULL, an empty blob, a few bytes, or a few kilobytes.
    func body() -> Data? {
        switch index(10) {
        case 0, 1, 2, 3: return nil
        case 4: return Data()
        case 5, 6, 7: return bytes(1 + index(64))
        default: return bytes(1024 + index(5 * 1024))
        }
    }

    func bytes(_ count: Int) -> Data {
        var data = Data(capacity: count + 8)
        while data.count < count {
            withUnsafeBytes(of: random.next()) { data.append(contentsOf: $0) }
        }
        return Data(data.prefix(count))
    }

    func trace(_ line: @autoclosure () -> String) {
        if tracing { print("[\(label)] step \(step): \(line())") }
    }

    /// An error of the engine (or of a database read) with the seed, the step and what was done.
    func failure(_ what: String, _ error: any Error) -> TestFailure {
        TestFailure("\(label), step \(step): \(what) failed: \(error)")
    }
}
