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
        for unit in [oldUnit, freshUnit] {
            try await remote.store.createDirectory(at: RemotePath("\(TestRemote.wholeStores(of: "ben"))/\(unit.directoryName)"))
            try await remote.overwrite("\(TestRemote.wholeStores(of: "ben"))/\(unit.directoryName)/\(WholeStoreManifest.storeFileName)", with: Data("half".utf8))
        }
        try await remote.overwrite("\(Paths.document)/SyncChanges/anna/upload.tmp", with: Data("left by a tool".utf8))
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
        #expect(shallow.problems.filter(\.isRepairable).map(\.kind) == [.staleMarker, .incompleteWholeStore])
        #expect(shallow.problems.allSatisfy { !$0.repaired })

        let deep = try await ben.manager.verifyRemote(VerificationOptions(deep: true))
        #expect(Set(deep.problems.filter { $0.kind == .unreadableChangeSet }.map(\.path)) == [truncated, flipped])

        let repaired = try await anna.manager.verifyRemote(VerificationOptions(repair: true))
        #expect(repaired.problems.filter(\.repaired).map(\.kind) == [.staleMarker, .incompleteWholeStore])
        let after = try await anna.manager.verifyRemote()
        #expect(after.problems.count == shallow.problems.count - 2)
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
    static func play(on remote: TestRemote, wholeStoreAfterStep: Int? = nil, keepHistoryFor: TimeInterval? = nil) async throws -> ScriptedHistory {
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
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
