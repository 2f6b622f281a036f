import Foundation
import GRDB
import SyncCore
import Testing

/// The reference convergence simulation (``ReferenceSimulation``) with the application's schema
/// evolving under it: at random moments a random client that has not run every migration runs its
/// next one, in order —
/// 1. `ALTER TABLE note ADD COLUMN priority INTEGER DEFAULT 0`, plainly (the next sync's
///    ``LocalStore/refreshSchema()`` follows it), followed by an explicit `refreshSchema()`, or
///    through ``LocalStore/changeSchema(_:)``;
/// 2. a new table `label` referring to `note` (`ON DELETE CASCADE`), then
///    ``LocalStore/addSyncedTable(_:)`` (sometimes with labels inserted before it, which it must
///    publish) —
/// often followed right away, before any sync, by a write to the new column or table. Migrated
/// clients then write priorities, notes with a priority and labels while the others keep writing
/// the old columns and syncing: those hold back the sets that name what they lack, with
/// ``SyncWarning/upgradeRequired(table:column:fromClient:fileName:)`` (counted, and checked to
/// name a column or table the client really lacks and the sender really has), and refuse whole
/// stores of a newer schema (treated as a skipped step, after checking the local data is
/// untouched). Syncs never fail because of the difference otherwise. Every client runs its
/// remaining migrations before the closing rounds, then the end conditions are those of the
/// simulation, on the new column and table too: identical data, clean `foreign_key_check` and
/// `integrity_check`, nothing pending, nothing lost, nothing resurrected.
///
/// The normal suite runs 55 histories of 120 steps (a failure one history in twenty meets shows
/// with a probability of 94 %, 1 − 0.95⁵⁵); `ROLLSYNC_SIMULATION_SEEDS=<n>` runs seeds 1…n with
/// 500 steps, `ROLLSYNC_SIMULATION_TRACE=<seed>` prints every step of that seed (its label says
/// "(schema migrations)").
@Suite("Schema migration simulation")
struct SchemaMigrationSimulationTests {
    static var seeds: [UInt64] {
        ReferenceConvergenceSimulationTests.longRun ? ReferenceConvergenceSimulationTests.seeds : Array(201...255)
    }

    @Test("clients migrate their schema at random moments while syncing and still converge, nothing lost or resurrected", arguments: seeds)
    func clientsMigrateWhileSyncing(seed: UInt64) async throws {
        try await ReferenceSimulation(
            seed: seed, steps: ReferenceConvergenceSimulationTests.steps, foreignKeysOffOnFirstClient: false, schemaMigrations: true
        ).run()
    }
}

/// The migrations of a history with schema evolution, how far each client got, and the counts.
struct SchemaEvolution {
    static let addPriority = "ALTER TABLE note ADD COLUMN priority INTEGER DEFAULT 0"
    static let createLabel = "CREATE TABLE label (id TEXT PRIMARY KEY NOT NULL, note_id TEXT REFERENCES note(id) ON DELETE CASCADE, text TEXT)"
    static let migrationCount = 2
    /// The application tables migrations add (``ReferenceSimulation/applicationTables(_:)``).
    static let addedTables = ["label"]

    /// The number of migrations each client ran.
    var levels: [Int]
    var migrations = 0
    var forcedMigrations = 0
    var migrationsThroughChangeSchema = 0
    var upgradeRequiredWarnings = 0
    /// Operations refused because a whole store they had to install has a newer schema, by kind.
    var refusals: [String: Int] = [:]
    /// Added columns syncs noticed, and the values they published.
    var columnsNoticedBySyncs = 0
    var valuesPublishedBySyncs = 0
    /// Values published by an explicit `refreshSchema()` or `addSyncedTable(_:)`.
    var valuesPublishedByMigrations = 0
    var columnWrites = 0
    var tableWrites = 0
    /// Checks after a sync that found references to rows in sets the client holds back, and the
    /// referring rows (see ``ReferenceSimulation/excludingReferencesIntoHeldBackSets(_:on:after:)``).
    var checksWithReferencesIntoHeldBackSets = 0
    var referencesIntoHeldBackSets: Set<String> = []

    init(clientCount: Int) {
        levels = Array(repeating: 0, count: clientCount)
    }

    /// The migration that adds the table (`column` nil) or column an `upgradeRequired` warning names.
    static func migration(adding table: String, column: String?) -> Int? {
        switch (table, column) {
        case ("note", "priority"?): 1
        case ("label", nil): 2
        default: nil
        }
    }
}

extension ReferenceSimulation {
    var migrationLevels: [Int] { evolution?.levels ?? Array(repeating: SchemaEvolution.migrationCount, count: clients.count) }

    /// The chance per step (per mille) of a migration: about four fifths of all migrations happen
    /// during the history, spread over it; the rest just before the closing rounds.
    var migrationChance: Int {
        min(200, max(5, 1000 * SchemaEvolution.migrationCount * clients.count * 4 / 5 / max(1, steps)))
    }

    /// One step of schema evolution, or `false` (the draw picked none, or the client has not
    /// migrated far enough for it) to run an ordinary step instead.
    func performSchemaStep(on index: Int) async throws -> Bool {
        let level = migrationLevels[index]
        let draw = self.index(1000)
        let migration = migrationChance
        switch draw - migration {
        case ..<0:
            let unfinished = clients.indices.filter { migrationLevels[$0] < SchemaEvolution.migrationCount }
            guard !unfinished.isEmpty else { return false }
            try await migrate(unfinished[self.index(unfinished.count)], forced: false)
        case 0..<60 where level >= 1: try updatePriority(on: index)
        case 60..<80 where level >= 1: try insertNoteWithPriority(on: index)
        case 80..<125 where level >= 2: try insertLabel(on: index)
        case 125..<145 where level >= 2: try updateLabel(on: index)
        case 145..<155 where level >= 2: try deleteLabel(on: index)
        default: return false
        }
        return true
    }

    /// Runs every client's remaining migrations, in random order of clients.
    func migrateRemainingClients() async throws {
        var unfinished = clients.indices.filter { migrationLevels[$0] < SchemaEvolution.migrationCount }
        while !unfinished.isEmpty {
            let index = unfinished.remove(at: self.index(unfinished.count))
            while migrationLevels[index] < SchemaEvolution.migrationCount {
                try await migrate(index, forced: true)
            }
        }
    }

    /// Runs the client's next migration as its application would, then, half of the time, writes
    /// to what it added before any sync. A quarter of the time, the client syncs between creating
    /// the table `label` and adding it to synchronization (the table is then an unsynced child of
    /// `note`, which the reference rule settles without publishing anything).
    func migrate(_ index: Int, forced: Bool) async throws {
        let client = clients[index]
        let level = migrationLevels[index]
        do {
            switch level {
            case 0:
                switch self.index(4) {
                case 0:
                    let changes = try client.localStore.changeSchema { db in try db.execute(sql: SchemaEvolution.addPriority) }
                    trace("\(client.name) runs migration 1 through changeSchema: \(changes)")
                    #expect(
                        changes == [.columnAdded(table: "note", column: "priority", publishedRows: 0)],
                        "\(label), step \(step): changeSchema of \(client.name) reports \(changes)"
                    )
                    evolution?.migrationsThroughChangeSchema += 1
                case 1:
                    try client.execute(SchemaEvolution.addPriority)
                    if chance(2) { try updatePriority(on: index) }
                    let written = try await client.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note WHERE priority IS NOT 0") ?? 0 }
                    let changes = try client.localStore.refreshSchema()
                    trace("\(client.name) runs migration 1 (ALTER TABLE), then refreshSchema: \(changes)")
                    #expect(
                        changes == [.columnAdded(table: "note", column: "priority", publishedRows: written)],
                        "\(label), step \(step): refreshSchema of \(client.name) after the ALTER TABLE reports \(changes), \(written) rows have a priority"
                    )
                    evolution?.valuesPublishedByMigrations += written
                default:
                    try client.execute(SchemaEvolution.addPriority)
                    trace("\(client.name) runs migration 1 (ALTER TABLE)")
                }
            default:
                try client.execute(SchemaEvolution.createLabel)
                if chance(3) {
                    for _ in 0...self.index(2) { try insertLabel(on: index) }
                }
                if chance(4) {
                    trace("\(client.name) created the table label and syncs before adding it to synchronization")
                    try await sync(index, "sync between CREATE TABLE label and addSyncedTable")
                }
                let labels = try client.count("label")
                let change = try client.localStore.addSyncedTable("label")
                trace("\(client.name) runs migration 2 (CREATE TABLE label, addSyncedTable): \(change.map { "\($0)" } ?? "nil")")
                #expect(
                    change == .tableAdded(table: "label", publishedRows: labels),
                    "\(label), step \(step): addSyncedTable of \(client.name) reports \(change.map { "\($0)" } ?? "nil"), it has \(labels) labels"
                )
                evolution?.valuesPublishedByMigrations += labels
            }
        } catch {
            throw failure("migration \(level + 1) of \(client.name)", error)
        }
        evolution?.levels[index] = level + 1
        evolution?.migrations += 1
        if forced { evolution?.forcedMigrations += 1 }
        if chance(2) {
            try level == 0 ? updatePriority(on: index) : insertLabel(on: index)
        }
    }

    // MARK: Writes to the new column and table

    func priority() -> Int64? {
        chance(8) ? nil : Int64(index(6))
    }

    func updatePriority(on index: Int) throws {
        guard let note = try hotOrAny("note", on: index) else { return }
        try countingWrites(\.columnWrites) {
            try write(on: index, [("UPDATE note SET priority = ? WHERE id = ?", [priority(), note])])
        }
    }

    func insertNoteWithPriority(on index: Int) throws {
        let folder = chance(4) ? nil : try pick("folder", on: index)
        try countingWrites(\.columnWrites) {
            try write(
                on: index, [("INSERT INTO note (id, folder_id, title, priority) VALUES (?, ?, ?, ?)", [newKey("n", index), folder, title(), priority()])],
                parents: [("folder", folder)]
            )
        }
    }

    func insertLabel(on index: Int) throws {
        let note = chance(6) ? nil : try pick("note", on: index)
        try countingWrites(\.tableWrites) {
            try write(on: index, [("INSERT INTO label (id, note_id, text) VALUES (?, ?, ?)", [newKey("l", index), note, text()])], parents: [("note", note)])
        }
    }

    /// Edits a label's text, or moves it to another note (or none).
    func updateLabel(on index: Int) throws {
        guard let label = try hotOrAny("label", on: index) else { return }
        if chance(2) {
            try countingWrites(\.tableWrites) { try write(on: index, [("UPDATE label SET text = ? WHERE id = ?", [text(), label])]) }
        } else {
            let note = chance(5) ? nil : try pick("note", on: index)
            try countingWrites(\.tableWrites) {
                try write(on: index, [("UPDATE label SET note_id = ? WHERE id = ?", [note, label])], parents: [("note", note)])
            }
        }
    }

    func deleteLabel(on index: Int) throws {
        guard let label = try pick("label", on: index) else { return }
        try countingWrites(\.tableWrites) { try write(on: index, [("DELETE FROM label WHERE id = ?", [label])]) }
    }

    /// Runs an application write, adding 1 to `counter` if it was not refused.
    func countingWrites(_ counter: WritableKeyPath<SchemaEvolution, Int>, _ body: () throws -> Void) throws {
        let before = localWrites
        try body()
        if localWrites > before { evolution?[keyPath: counter] += 1 }
    }

    // MARK: Checks

    /// Whether `error` is the refusal of a whole store written with a schema the client has not
    /// migrated to yet (`what` needed to install one): then it is counted as a skipped step.
    func refusedForNewerSchema(_ error: any Error, on index: Int, _ what: String) -> Bool {
        guard evolution != nil, migrationLevels[index] < SchemaEvolution.migrationCount else { return false }
        let code = (error as? SyncError)?.code.description
        let text = "\(error)"
        // Only a whole store is refused: a change set of a newer schema is held back with a warning.
        guard text.contains("whole store"), code == "upgradeRequired" || text.contains("newer schema") else { return false }
        evolution?.refusals[what.hasPrefix("sync") ? "syncs" : what, default: 0] += 1
        trace("\(what) of \(clients[index].name) (migrations run: \(migrationLevels[index])) refused for a newer schema: \(error)")
        return true
    }

    /// The client's data and change log, to check a refused whole store left them untouched.
    func schemaRefusalState(of index: Int) throws -> [String] {
        try Self.dump(of: clients[index])
            + clients[index].database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM rollingsync_changes ORDER BY rowid").map(\.description) }
    }

    func checkUntouched(_ index: Int, since before: [String]?) throws {
        guard let before else { return }
        let after = try schemaRefusalState(of: index)
        #expect(
            after == before,
            """
            \(label), step \(step): a whole store refused for a newer schema changed \(clients[index].name): \
            now \(Set(after).subtracting(before).sorted().prefix(4)), before \(Set(before).subtracting(after).sorted().prefix(4))
            """
        )
    }

    /// The dangling references that are not explained by sets the client holds back.
    ///
    /// A client that holds back a set of a newer schema also holds back that client's later sets,
    /// but applies the other clients' sets, which may refer to rows inserted in the held ones: it
    /// then has those references dangling until it migrates and applies the held sets (the end
    /// conditions check they are gone). Sets held back that way hold back, in turn, any set that
    /// edits a row one of them creates, this client's own included once a whole-store install
    /// made it apply its own sets again. Such references are counted, not failures: while this
    /// client has not run every migration, a reference to a row that an application of a client
    /// with more migrations than this one inserted, or of a client whose sets its last sync held
    /// back. Any other is returned.
    func excludingReferencesIntoHeldBackSets(
        _ references: [DanglingReference], on index: Int, after what: String
    ) -> [DanglingReference] {
        let levels = migrationLevels
        let explained = references.filter { reference in
            guard levels[index] < SchemaEvolution.migrationCount, let inserter = inserted[reference.parent],
                let inserterIndex = clients.firstIndex(where: { $0.name.rawValue == inserter })
            else { return false }
            return levels[inserterIndex] > levels[index] || heldBackWriters[index, default: []].contains(inserter)
        }
        guard !explained.isEmpty else { return references }
        trace("after a \(what), \(clients[index].name) has references into sets it holds back: \(explained)")
        evolution?.checksWithReferencesIntoHeldBackSets += 1
        evolution?.referencesIntoHeldBackSets.formUnion(explained.map(\.row))
        return references.filter { !explained.contains($0) }
    }

    /// Counts the sync's `upgradeRequired` warnings, checking each names a table or column the
    /// client lacks and the sender has, and checks the schema changes it reports.
    func checkSchemaEffects(of report: SyncReport, on index: Int) {
        let levels = migrationLevels
        let name = clients[index].name
        for warning in report.warnings {
            guard case .upgradeRequired(let table, let column, let sender, let fileName) = warning else { continue }
            evolution?.upgradeRequiredWarnings += 1
            let needed = SchemaEvolution.migration(adding: table, column: column)
            let senderLevel = clients.firstIndex { $0.name == sender }.map { levels[$0] }
            #expect(
                needed.map { levels[index] < $0 && (senderLevel ?? 0) >= $0 } ?? false,
                """
                \(label), step \(step): \(name) (migrations run: \(levels[index])) reports that \(fileName) of \(sender) \
                (migrations run: \(senderLevel.map { "\($0)" } ?? "?")) needs an upgrade for table \(table), column \(column ?? "nil")
                """
            )
        }
        for change in report.schemaChanges {
            if case .columnAdded(table: "note", column: "priority", let published) = change, levels[index] >= 1 {
                evolution?.columnsNoticedBySyncs += 1
                evolution?.valuesPublishedBySyncs += published
            } else {
                Issue.record(
                    Comment(rawValue: "\(label), step \(step): a sync of \(name) (migrations run: \(levels[index])) reports the schema change \(change)")
                )
            }
        }
    }

    /// The schema-evolution part of the closing line ("" without it).
    func schemaMigrationSummary() throws -> String {
        guard let evolution else { return "" }
        let (labels, priorities) = try clients[0].database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM label") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM note WHERE priority IS NOT 0") ?? 0
            )
        }
        let refusals = evolution.refusals.isEmpty ? "none" : evolution.refusals.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return """
            ; \(evolution.migrations) migrations (\(evolution.forcedMigrations) forced before the closing rounds, \
            \(evolution.migrationsThroughChangeSchema) through changeSchema), \(evolution.upgradeRequiredWarnings) upgradeRequired warnings, \
            operations refused for a whole store of a newer schema: \(refusals), \(evolution.columnsNoticedBySyncs) added columns noticed by syncs \
            (\(evolution.valuesPublishedBySyncs) values published; \(evolution.valuesPublishedByMigrations) by refreshSchema and addSyncedTable), \
            \(evolution.columnWrites) writes to the new column, \(evolution.tableWrites) to the new table, \
            \(evolution.checksWithReferencesIntoHeldBackSets) checks found references into held-back sets \
            (\(evolution.referencesIntoHeldBackSets.count) rows); \
            at the end \(labels) labels, \(priorities) notes with a priority
            """
    }
}
