import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import TestSupport
import Testing

/// `verify`, `log` and point-in-time restore (issue 21) on a scripted history: every moment of it
/// restored and compared whole with the state the clients had then, the log compared with what was
/// done, and the remote damaged in each way verify must find. Through a folder here and through
/// the real SFTP and WebDAV servers below.
@Suite("History: verify, log, restore")
struct HistoryTests {
    @Test("restore at every moment of a scripted history equals the data as it was then")
    func restoreEveryMoment() async throws {
        try await Self.restoreEveryMoment(through: TestRemote(.folder))
    }

    @Test("the log lists each change set with its client, time and changes, and filters them")
    func logMatchesTheScript() async throws {
        try await Self.logMatchesTheScript(through: TestRemote(.folder))
    }

    @Test("verify finds each kind of damage, and --repair fixes only the safe ones")
    func verifyFindsDamage() async throws {
        try await Self.verifyFindsDamage(through: TestRemote(.folder))
    }

    @Test("restore is refused with the earliest restorable moment once vacuum removed the history")
    func restoreRefusedAfterVacuum() async throws {
        let remote = try TestRemote(.memory)
        let history = try await ScriptedHistory.play(on: remote)
        let (anna, ben) = (history.anna, history.ben)
        let unit = try await anna.manager.uploadWholeStore()
        try await ben.sync()
        _ = try await anna.manager.vacuum()
        _ = try await ben.manager.vacuum()
        let range = try await anna.manager.verifyRemote().restorableRange
        #expect(range.isRestorable && range.earliest == unit.unit.date)

        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("early.sqlite")
        await #expect {
            try await anna.manager.restore(.at(history.moments[1].time), to: file)
        } throws: { error in
            guard let error = error as? SyncError, error.code == .historyMissing else { return false }
            return error.message.contains(unit.unit.date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        #expect(!FileManager.default.fileExists(atPath: file.path), "nothing is left behind")

        // The newest moment still restores, from the whole store.
        let latest = file.deletingLastPathComponent().appendingPathComponent("latest.sqlite")
        let report = try await anna.manager.restore(.at(Date()), to: latest)
        #expect(report.base != nil)
        #expect(try Self.dump(latest) == history.moments.last?.dump)
    }

    @Test("keeping history: vacuum keeps recent sets and push-store keeps the base whole store, so older moments still restore")
    func keptHistoryRestores() async throws {
        let remote = try TestRemote(.memory)
        let history = try await ScriptedHistory.play(on: remote, wholeStoreAfterStep: 1, keepHistoryFor: 3_600)
        let (anna, ben) = (history.anna, history.ben)
        _ = try await anna.manager.uploadWholeStore(keepingHistoryFor: 3_600)
        try await ben.sync()
        let annaVacuum = try await anna.manager.vacuum(VacuumOptions(keepHistoryFor: 3_600))
        #expect(annaVacuum.removedSets.isEmpty)
        #expect(annaVacuum.holds.map(\.reason) == [.keptForHistory])
        #expect(try await remote.units(of: "anna").count == 2, "the older whole store is kept for the period")
        // Vacuum without keeping removes what every whole store holds; the kept base still lets
        // every moment after it restore.
        _ = try await anna.manager.vacuum()
        _ = try await ben.manager.vacuum()
        let directory = try TemporaryDirectory()
        for (index, moment) in history.moments.enumerated().dropFirst() {
            let file = directory.url.appendingPathComponent("moment-\(index).sqlite")
            try await ben.manager.restore(.at(moment.time), to: file)
            #expect(try Self.dump(file) == moment.dump, "moment \(index)")
        }
    }

    @Test("an encrypted history verifies, logs and restores alike; a flipped byte fails decryption")
    func encryptedHistory() async throws {
        let remote = try TestRemote(.folder)
        let history = try await ScriptedHistory.play(on: remote, wholeStoreAfterStep: 2, encryptedWith: "correct horse")
        let check = try await history.anna.manager.verifyRemote(VerificationOptions(deep: true))
        #expect(check.problems == [] && check.wholeStoresChecked == 1, "\(check.problems)")
        let directory = try TemporaryDirectory()
        for (index, moment) in history.moments.enumerated() {
            let file = directory.url.appendingPathComponent("at-\(index).sqlite")
            try await history.ben.manager.restore(.at(moment.time), to: file)
            #expect(try Self.dump(file) == moment.dump, "moment \(index)")
        }
        let log = try await history.ben.manager.history()
        #expect(log.entries.map(\.setID) == history.moments.flatMap(\.setIDs))
        let set = try #require(try await remote.names(in: Paths.changeSets(of: "ben")).last { $0.hasSuffix(".syncchg") })
        let path = "\(Paths.changeSets(of: "ben"))/\(set)"
        var bytes = try await remote.raw(path)
        bytes[bytes.count - 20] ^= 0x01
        try await remote.overwrite(path, with: bytes)
        let damaged = try await history.anna.manager.verifyRemote(VerificationOptions(deep: true))
        #expect(damaged.problems.map(\.path) == [path] && damaged.problems.first?.kind == .unreadableChangeSet)
        #expect(damaged.problems.first?.detail.contains("password") == false, "\(damaged.problems)")
        let unreadable = try await history.anna.manager.history().unreadable
        #expect(unreadable.map(\.path) == [path])
        await #expect(throws: SyncError.self) {
            try await history.anna.manager.restore(.at(Date()), to: directory.url.appendingPathComponent("late.sqlite"))
        }
    }

    @Test("history removed with its client is never silently missed: restores start from a whole store written after the removal")
    func removedClientHistory() async throws {
        let remote = try TestRemote(.folder)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let carl = try TestClient("carl", remote: remote.store)
        try carl.execute("INSERT INTO folder VALUES ('fc', 'Carl''s')")
        try await carl.sync()
        try await anna.sync()
        try await ben.sync()
        let afterCarl = Date()
        await ScriptedHistory.waitForNextMillisecond(after: afterCarl)
        let early = try await anna.manager.uploadWholeStore()
        try await anna.application.removeClient(carl.name, from: TestClient.documentID)
        try ben.execute("INSERT INTO folder VALUES ('fb', 'Ben''s')")
        try await ben.sync()
        let directory = try TemporaryDirectory()

        // Only a whole store older than the removal: carl may have pushed sets it lacks.
        var check = try await anna.manager.verifyRemote()
        #expect(check.isClean && Set(check.problems.map(\.kind)) == [.historyOnlyInWholeStores], "\(check.problems)")
        #expect(!check.restorableRange.isRestorable, "\(check.restorableRange) with the whole store of \(early.unit)")
        await #expect {
            try await ben.manager.restore(.at(Date()), to: directory.url.appendingPathComponent("refused.sqlite"))
        } throws: { ($0 as? SyncError)?.code == .historyMissing }

        await ScriptedHistory.waitForNextMillisecond(after: Date())
        let unit = try await ben.manager.uploadWholeStore()
        check = try await anna.manager.verifyRemote()
        #expect(check.restorableRange.isRestorable && check.restorableRange.earliest == unit.unit.date)
        await #expect {
            try await ben.manager.restore(.at(afterCarl), to: directory.url.appendingPathComponent("early.sqlite"))
        } throws: { ($0 as? SyncError)?.code == .historyMissing }
        let latest = directory.url.appendingPathComponent("latest.sqlite")
        try await anna.manager.restore(.at(Date()), to: latest)
        #expect(try Self.dump(latest) == ben.dump())
        let restored = try Self.dump(latest)
        #expect(restored.contains { $0.contains("id:\"fc\"") }, "\(restored)")
    }

    @Test("a whole store older than a schema migration gains the new columns, so the sets after it restore")
    func restoreAcrossAMigration() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO note VALUES ('n1', NULL, 'before', NULL, 1)")
        try await anna.sync()
        _ = try await anna.manager.uploadWholeStore()
        try await ben.sync()
        for client in [anna, ben] {
            _ = try client.localStore.changeSchema { db in try db.execute(sql: "ALTER TABLE note ADD COLUMN priority INTEGER DEFAULT 0") }
            // What an application's own migrator would also have done and recorded.
            try client.execute("""
                CREATE INDEX note_priority ON note (priority);
                CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('app v2: priority');
                """)
        }
        let beforeEdit = Date()
        await ScriptedHistory.waitForNextMillisecond(after: beforeEdit)
        try anna.execute("UPDATE note SET priority = 5, title = 'after' WHERE id = 'n1'")
        try anna.execute("INSERT INTO note VALUES ('n2', NULL, 'new', NULL, 2, 7)")
        try await anna.sync()
        try await ben.sync()
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("after.sqlite")
        let report = try await ben.manager.restore(.at(Date()), to: file)
        #expect(report.base != nil && report.appliedSets == 1)
        #expect(try Self.dump(file) == ben.dump())
        try Self.checkRestoredFile(file)
        let restored = try DatabaseQueue(path: file.path)
        let (index, migrations) = try await restored.read { db in
            (try String.fetchOne(db, sql: "SELECT name FROM sqlite_schema WHERE name = 'note_priority'"), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        try restored.close()
        #expect(index == "note_priority" && migrations.contains("app v2: priority"), "the application's migrator will not run again on it")
        // Without a database of the new schema, the set after the migration cannot apply: typed.
        await #expect {
            try await ben.application.restore(document: TestClient.documentID, to: directory.url.appendingPathComponent("old.sqlite"), at: .at(Date()))
        } throws: { ($0 as? SyncError)?.code == .upgradeRequired }
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("old.sqlite").path))
        let before = directory.url.appendingPathComponent("before.sqlite")
        try await ben.manager.restore(.at(beforeEdit), to: before)
        #expect(try Self.dump(before) == ["note [id:\"n1\" folder_id:NULL title:\"before\" body:NULL rank:1 priority:0]"])
    }

    /// Found by the schema-migration simulation at 200 seeds (seed 31, 500 steps): a replayed
    /// deletion made the reference rule clear a reference the base whole store still held, and
    /// the cleared value took the clock of the moment of the restore, so it won over every later
    /// write of that cell. Its clock is now that point of the history.
    @Test("a reference a replayed deletion clears in a restore loses to later writes, as on the clients")
    func restoredRuleEffectsKeepTheirPlaceInHistory() async throws {
        let schema = """
            CREATE TABLE folder (id TEXT PRIMARY KEY NOT NULL, name TEXT);
            CREATE TABLE note (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folder(id) ON DELETE SET NULL, title TEXT);
            """
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, schema: schema, tables: ["folder", "note"])
        let ben = try TestClient("ben", remote: remote.store, schema: schema, tables: ["folder", "note"])
        try anna.execute("INSERT INTO folder VALUES ('f', 'first'), ('g', 'second'); INSERT INTO note VALUES ('n', NULL, 'note')")
        for client in [anna, ben, anna] { try await client.sync() }
        let addPriority: @Sendable (Database) throws -> Void = { db in try db.execute(sql: "ALTER TABLE note ADD COLUMN priority INTEGER DEFAULT 0") }

        // Anna migrates and deletes f; Ben, not migrated, holds her set back, files n in f and
        // uploads a whole store that still has f.
        _ = try anna.localStore.changeSchema(addPriority)
        try anna.execute("UPDATE note SET priority = 2 WHERE id = 'n'; DELETE FROM folder WHERE id = 'f'")
        try await anna.sync()
        try ben.execute("UPDATE note SET folder_id = 'f' WHERE id = 'n'")
        _ = try await ben.manager.uploadWholeStore()
        // Ben migrates: the deletion arrives and clears his reference; then Anna files n in g.
        _ = try ben.localStore.changeSchema(addPriority)
        try await ben.sync()
        try await anna.sync()
        try anna.execute("UPDATE note SET folder_id = 'g' WHERE id = 'n'")
        for client in [anna, ben, anna, ben] { try await client.sync() }
        #expect(try anna.value("SELECT folder_id FROM note WHERE id = 'n'") == "g".databaseValue)
        #expect(try ben.value("SELECT folder_id FROM note WHERE id = 'n'") == "g".databaseValue)

        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("present.sqlite")
        let report = try await ben.manager.restore(.at(Date()), to: file)
        #expect(report.base != nil, "the replay starts from Ben's whole store, which still has f")
        let restored = try DatabaseQueue(path: file.path)
        #expect(try await restored.read { try String.fetchOne($0, sql: "SELECT folder_id FROM note WHERE id = 'n'") } == "g", "the present, as every client has it")
        try restored.close()
    }

    @Test("verify while clients sync, upload whole stores and vacuum finds no problem", arguments: [false, true])
    func verifyWhileOthersWork(deep: Bool) async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let reports = try await withThrowingTaskGroup(of: [VerificationReport].self) { group in
            group.addTask {
                for index in 0..<12 {
                    try anna.execute("INSERT INTO tag VALUES ('a\(index)', 'from anna')")
                    try await anna.sync()
                    if index % 4 == 3 {
                        _ = try await anna.manager.uploadWholeStore()
                        _ = try await anna.manager.vacuum()
                    }
                }
                return []
            }
            group.addTask {
                for index in 0..<12 {
                    try ben.execute("INSERT INTO tag VALUES ('b\(index)', 'from ben')")
                    try await ben.sync()
                    if index % 6 == 5 { _ = try await ben.manager.vacuum() }
                }
                return []
            }
            group.addTask {
                var reports: [VerificationReport] = []
                for _ in 0..<8 {
                    reports.append(try await anna.application.verify(document: TestClient.documentID, options: VerificationOptions(deep: deep)))
                }
                return reports
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        for report in reports {
            #expect(report.isClean, "\(report.problems.filter { $0.severity == .problem })")
            // A set uploaded while verify listed is never taken for history gone from the directories.
            #expect(report.restorableRange.isRestorable && !report.problems.contains { $0.kind == .historyOnlyInWholeStores })
        }
        try await anna.sync()
        let settled = try await ben.manager.verifyRemote(VerificationOptions(deep: deep))
        #expect(settled.problems.filter { $0.kind != .unusableWholeStore } == [], "\(settled.problems)")
    }

    // MARK: - Scenarios shared with the server suite

    static func restoreEveryMoment(through remote: TestRemote) async throws {
        let history = try await ScriptedHistory.play(on: remote, wholeStoreAfterStep: 2)
        let directory = try TemporaryDirectory()
        for (index, moment) in history.moments.enumerated() {
            let file = directory.url.appendingPathComponent("at-\(index).sqlite")
            let report = try await history.ben.manager.restore(.at(moment.time), to: file)
            #expect(try dump(file) == moment.dump, "moment \(index) restored from \(report.base ?? "the beginning")")
            try checkRestoredFile(file)
            #expect((index >= 2) == (report.base != nil), "moments from the whole store on start from it")
        }
        // Just before each set: the state after the step before it.
        for (index, moment) in history.moments.enumerated().dropFirst() {
            for setID in moment.setIDs {
                let file = directory.url.appendingPathComponent("before-\(setID).sqlite")
                try await history.anna.manager.restore(.beforeChangeSet(setID), to: file)
                #expect(try dump(file) == history.moments[index - 1].dump || moment.setIDs.first != setID, "before the first set of step \(index)")
            }
        }
        // Through the application manager, without a database: the schema comes from the whole store.
        let file = directory.url.appendingPathComponent("app-level.sqlite")
        try await history.anna.application.restore(document: TestClient.documentID, to: file, at: .at(history.moments[1].time))
        #expect(try dump(file) == history.moments[1].dump)
        await #expect(throws: SyncError.self) {
            try await history.anna.manager.restore(.beforeChangeSet("no-such-set"), to: directory.url.appendingPathComponent("none.sqlite"))
        }
        await #expect(throws: SyncError.self) {
            try await history.anna.manager.restore(.at(Date()), to: file)
        }
        #expect(try dump(file) == history.moments[1].dump, "an existing file is never overwritten")
    }

    static func logMatchesTheScript(through remote: TestRemote) async throws {
        let history = try await ScriptedHistory.play(on: remote)
        let log = try await history.anna.manager.history(matching: HistoryQuery(includeRows: true))
        #expect(log.entries.map(\.setID) == history.moments.flatMap(\.setIDs))
        #expect(log.entries.allSatisfy { $0.appliedHere == true })
        let first = try #require(log.entries.first)
        #expect(first.client == "anna" && first.clientDescription == "test client anna")
        #expect(first.tables.map { "\($0.table) \($0.inserted)/\($0.updated)/\($0.deleted)" } == ["folder 1/0/0", "note 2/0/0", "note_tag 1/0/0", "tag 1/0/0"])
        #expect(first.rows?.contains { $0.table == "note" && $0.key == "n1" && $0.operation == "insert" && $0.columns == ["folder_id", "title", "body", "rank"] } == true)
        #expect(first.time >= history.moments[0].time && first.time <= history.moments[1].time)

        let bens = try await history.anna.manager.history(matching: HistoryQuery(clients: [history.ben.name]))
        #expect(bens.entries.map(\.setID) == log.entries.filter { $0.client == "ben" }.map(\.setID) && !bens.entries.isEmpty)
        let folders = try await history.anna.manager.history(matching: HistoryQuery(table: "folder"))
        #expect(folders.entries.allSatisfy { $0.tables.map(\.table) == ["folder"] })
        #expect(folders.entries.map { $0.tables[0].deleted }.reduce(0, +) == 1, "the one folder deletion")
        let n3 = try await history.anna.manager.history(matching: HistoryQuery(key: "n3", includeRows: true))
        #expect(n3.entries.flatMap { $0.rows ?? [] }.map(\.operation) == ["insert", "update", "update", "update", "update"])
        let late = try await history.anna.application.history(of: TestClient.documentID, matching: HistoryQuery(since: history.moments[3].time))
        #expect(late.entries.map(\.setID) == history.moments.dropFirst(4).flatMap(\.setIDs))
        #expect(late.entries.allSatisfy { $0.appliedHere == nil }, "asked without a database")
    }

    static func verifyFindsDamage(through remote: TestRemote) async throws {
        let history = try await ScriptedHistory.play(on: remote, wholeStoreAfterStep: 2)
        let (anna, ben) = (history.anna, history.ben)
        let clean = try await anna.manager.verifyRemote(VerificationOptions(deep: true))
        #expect(clean.problems == [], "\(clean.problems)")
        #expect(clean.changeSetsChecked == history.moments.flatMap(\.setIDs).count && clean.wholeStoresChecked == 1)

        let annaSets = try await remote.names(in: Paths.changeSets(of: "anna")).filter { $0.hasSuffix(".syncchg") }
        let truncated = "\(Paths.changeSets(of: "anna"))/\(annaSets[0])"
        try await remote.overwrite(truncated, with: remote.raw(truncated).prefix(10))
        var flippedBytes = try await remote.raw("\(Paths.changeSets(of: "anna"))/\(annaSets[1])")
        flippedBytes[flippedBytes.count / 2] ^= 0x40
        let flipped = "\(Paths.changeSets(of: "anna"))/\(annaSets[1])"
        try await remote.overwrite(flipped, with: flippedBytes)
        let benSets = try await remote.names(in: Paths.changeSets(of: "ben")).filter { $0.hasSuffix(".syncchg") }
        let announced = try #require(benSets.last)
        try await remote.store.delete(RemotePath("\(Paths.changeSets(of: "ben"))/\(announced)"))
        let oldUnit = WholeStoreUnitName(clock: HLCTimestamp(physicalMilliseconds: UInt64((Date().timeIntervalSince1970 - 3 * 86_400) * 1000)))
        let freshUnit = WholeStoreUnitName(clock: HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000)))
        let localRoot = try #require(remote.localRoot, "the scenario plants files the store API cannot make")
        for unit in [oldUnit, freshUnit] {
            let store = "\(TestRemote.wholeStores(of: "ben"))/\(unit.directoryName)/\(WholeStoreCompression.written.storeFileName)"
            try await remote.store.createDirectory(at: RemotePath("\(TestRemote.wholeStores(of: "ben"))/\(unit.directoryName)"))
            try await remote.overwrite(store, with: Data("half".utf8))
            // The server's time of an interrupted upload's file is as old as the unit's name says.
            try FileManager.default.setAttributes([.modificationDate: unit.date], ofItemAtPath: localRoot.appendingPathComponent(store).path)
        }
        try await remote.overwrite("\(Paths.document)/SyncChanges/anna/upload.tmp", with: Data("left by a tool".utf8))
        // Temporary files of interrupted uploads, one old and one recent, where the store keeps them.
        let temporaryDirectory = localRoot.appendingPathComponent(Paths.changeSets(of: "anna"))
        for (name, age) in [("old", 2 * 86_400.0), ("recent", 60.0)] {
            let file = temporaryDirectory.appendingPathComponent(RemotePath.reservedTemporaryPrefix + name)
            try Data("half an upload".utf8).write(to: file)
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: file.path)
        }
        // A third client that synced once, then lost its directory (a removal cut short).
        let carl = try TestClient("carl", remote: remote.store)
        try await carl.sync()
        try await remote.store.delete(RemotePath(Paths.changeSets(of: "carl")))
        try await remote.store.createDirectory(at: RemotePath("\(Paths.document)/SyncChanges/ghost"))

        let shallow = try await anna.manager.verifyRemote()
        let kinds = Dictionary(grouping: shallow.problems, by: \.kind).mapValues { $0.map(\.path) }
        #expect(kinds[.unreadableChangeSet] == [truncated], "a shallow check sees only the truncation")
        #expect(kinds[.missingChangeSet] == ["\(Paths.changeSets(of: "ben"))/\(announced)"])
        #expect(Set(kinds[.incompleteWholeStore] ?? []) == Set([oldUnit, freshUnit].map { "\(TestRemote.wholeStores(of: "ben"))/\($0.directoryName)" }))
        #expect(kinds[.unknownFile] == ["\(Paths.document)/SyncChanges/anna/upload.tmp"])
        #expect(kinds[.staleMarker]?.count == 1 && shallow.problems.first { $0.kind == .staleMarker }?.client == "carl")
        #expect(kinds[.unknownClient] == ["\(Paths.document)/SyncChanges/ghost"])
        let temporary = RemotePath.reservedTemporaryPrefix
        #expect(Set(kinds[.temporaryFile] ?? []) == Set(["old", "recent"].map { "\(Paths.changeSets(of: "anna"))/\(temporary)\($0)" }))
        let repairable = shallow.problems.filter(\.isRepairable)
        #expect(repairable.map(\.kind) == [.staleMarker, .temporaryFile, .incompleteWholeStore])
        #expect(repairable.allSatisfy { $0.kind != .temporaryFile || $0.path.hasSuffix("old") })
        #expect(repairable.allSatisfy { $0.severity == .problem })
        // Passing states are notices: an upload whose marker is written, a recent upload, a file
        // the format does not know.
        let notices = Set(shallow.problems.filter { $0.severity == .notice }.map(\.kind))
        #expect(notices == [.missingChangeSet, .incompleteWholeStore, .temporaryFile, .unknownFile])
        #expect(!shallow.isClean)
        #expect(shallow.problems.allSatisfy { !$0.repaired })

        let deep = try await ben.manager.verifyRemote(VerificationOptions(deep: true))
        #expect(Set(deep.problems.filter { $0.kind == .unreadableChangeSet }.map(\.path)) == [truncated, flipped])

        let repaired = try await anna.manager.verifyRemote(VerificationOptions(repair: true))
        #expect(repaired.problems.filter(\.repaired).map(\.kind) == repairable.map(\.kind))
        let after = try await anna.manager.verifyRemote()
        #expect(after.problems.count == shallow.problems.count - repairable.count)
        #expect(!FileManager.default.fileExists(atPath: temporaryDirectory.appendingPathComponent(temporary + "old").path))
        #expect(FileManager.default.fileExists(atPath: temporaryDirectory.appendingPathComponent(temporary + "recent").path))
        #expect(!after.problems.contains { $0.isRepairable && $0.kind == .staleMarker })
        #expect(try await remote.units(of: "ben").contains(freshUnit.directoryName), "a recent leftover is left alone")
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")).contains(annaSets[1]), "damaged sets are never removed")
    }

    // MARK: - Checks

    /// Every row of the scenario's tables in the database file at `url`.
    static func dump(_ url: URL) throws -> [String] {
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        return try database.read { db in
            try NotesSchema.tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY id").map { "\(table) \($0.description)" }
            }
        }
    }

    /// A restored file is a sound SQLite database, bound to no document, with nothing pending.
    static func checkRestoredFile(_ url: URL) throws {
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        let (integrity, brokenReferences, pending, bindings) = try database.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_changes"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_registration") ?? 0
            )
        }
        #expect(integrity == "ok" && brokenReferences == 0 && pending == 0 && bindings == 0)
    }
}

/// The same scenarios through the real SFTP and WebDAV servers.
@Suite("History through the real servers", .enabled(if: TestServer.isEnabled, TestServer.skipReason))
struct ServerHistoryTests {
    @Test("restore at every moment", arguments: [TestServer.sftp, .webdavApache])
    func restoreEveryMoment(server: TestServer) async throws {
        try await server.withFreshStore(HistoryTests.restoreEveryMoment(through:))
    }

    @Test("the log of a scripted history", arguments: [TestServer.sftp, .webdavApache])
    func logMatchesTheScript(server: TestServer) async throws {
        try await server.withFreshStore(HistoryTests.logMatchesTheScript(through:))
    }

    @Test("verify finds each kind of damage", arguments: [TestServer.sftp, .webdavApache])
    func verifyFindsDamage(server: TestServer) async throws {
        try await server.withFreshStore(HistoryTests.verifyFindsDamage(through:))
    }
}

/// A scripted history of two clients: after each step both have synced, and the moment and the
/// data they then hold are recorded.
struct ScriptedHistory {
    /// One recorded moment: a time after the step's sets and before the next step's changes, the
    /// data at that time, and the ids of the sets the step pushed, in apply order.
    struct Moment {
        var time: Date
        var dump: [String]
        var setIDs: [String]
    }

    let anna: TestClient
    let ben: TestClient
    /// Moment 0 is before anything; moment `i` is after step `i`.
    var moments: [Moment] = []

    /// Plays the script on `remote`, uploading anna's whole store after step `wholeStoreAfterStep`.
    static func play(
        on remote: TestRemote, wholeStoreAfterStep: Int? = nil, keepHistoryFor: TimeInterval? = nil, encryptedWith password: String? = nil
    ) async throws -> ScriptedHistory {
        let (anna, ben) = try await {
            guard let password else { return try await TestClient.syncedPair(on: remote) }
            let anna = try TestClient("anna", remote: remote.store, codecProvider: EncryptionSetup(password: password).provider)
            let ben = try TestClient("ben", remote: remote.store, codecProvider: EncryptionSetup(password: password).provider)
            try await anna.sync()
            try await ben.sync()
            return (anna, ben)
        }()
        var history = ScriptedHistory(anna: anna, ben: ben)
        var known: Set<String> = []
        try await history.record(remote: remote, known: &known)
        let steps: [(TestClient, String)] = [
            (anna, """
                INSERT INTO folder VALUES ('f1', 'Home');
                INSERT INTO note VALUES ('n1', 'f1', 'Milk', NULL, 1), ('n2', 'f1', 'Bread', 'wholemeal', 2);
                INSERT INTO tag VALUES ('t1', 'shopping');
                INSERT INTO note_tag VALUES ('nt1', 'n1', 't1');
                """),
            (ben, """
                UPDATE note SET title = 'Oat milk' WHERE id = 'n1';
                INSERT INTO note VALUES ('n3', NULL, 'Ünïcødé ✓', x'00ff10', 3);
                """),
            (anna, "DELETE FROM folder WHERE id = 'f1'; UPDATE note SET rank = 30 WHERE id = 'n3';"),
            (ben, "INSERT INTO folder VALUES ('f2', 'Work'); UPDATE note SET folder_id = 'f2', body = NULL WHERE id = 'n3';"),
        ]
        for (index, (client, sql)) in steps.enumerated() {
            try client.execute(sql)
            try await client.sync()
            let other = client === anna ? ben : anna
            try await other.sync()
            if index + 1 == wholeStoreAfterStep {
                _ = try await anna.manager.uploadWholeStore(keepingHistoryFor: keepHistoryFor)
            }
            try await history.record(remote: remote, known: &known)
        }
        // A concurrent edit of the same cell on both clients, decided by the last writer (ben's,
        // a millisecond later).
        try anna.execute("UPDATE note SET title = 'anna''s title' WHERE id = 'n3'")
        await Self.waitForNextMillisecond(after: Date())
        try ben.execute("UPDATE note SET title = 'ben''s title' WHERE id = 'n3'")
        try await anna.sync()
        try await ben.sync()
        try await anna.sync()
        try await history.record(remote: remote, known: &known)
        return history
    }

    /// Records the current moment once both clients hold the same data, then waits for the wall
    /// clock to pass it, so every later change has a later millisecond.
    private mutating func record(remote: TestRemote, known: inout Set<String>) async throws {
        let dump = try anna.dump()
        guard dump == (try ben.dump()) else { throw TestFailure("the clients differ after a step") }
        var sets: [(name: ChangeSetName, id: String)] = []
        for client in ["anna", "ben"] {
            for file in try await remote.names(in: Paths.changeSets(of: client)) {
                guard let name = ChangeSetName(fileName: file), !known.contains(name.id) else { continue }
                sets.append((name, name.id))
            }
        }
        sets.sort { $0.name < $1.name }
        known.formUnion(sets.map(\.id))
        let time = Date()
        moments.append(Moment(time: time, dump: dump, setIDs: sets.map(\.id)))
        await Self.waitForNextMillisecond(after: time)
    }

    /// Returns once the wall clock is in a later millisecond than `time` (a few yields).
    static func waitForNextMillisecond(after time: Date) async {
        while Int64(Date().timeIntervalSince1970 * 1000) <= Int64(time.timeIntervalSince1970 * 1000) {
            await Task.yield()
        }
    }
}
