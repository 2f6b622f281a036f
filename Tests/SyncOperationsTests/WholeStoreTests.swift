import Foundation
import GRDB
import InMemoryRemote
import SyncCore
import TestSupport
import Testing

@Suite("Whole-store upload, download and bootstrap")
struct WholeStoreTests {
    @Test("a new client bootstraps from a whole store plus the tail and ends with the others' data", arguments: Backend.allCases)
    func bootstrapEqualsOthersData(backend: Backend) async throws {
        try await Self.bootstrapEqualsOthersData(through: try TestRemote(backend))
    }

    /// The bootstrap scenario, on any remote (also run through the real servers).
    static func bootstrapEqualsOthersData(through remote: TestRemote) async throws {
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'One', 'a', 1)")
        try await anna.sync()
        try await ben.sync()
        let upload = try await anna.manager.uploadWholeStore()
        #expect(try await remote.completeUnits(of: "anna") == [upload.unit.directoryName])
        #expect(upload.manifest.files[WholeStoreCompression.written.storeFileName]?.size ?? 0 > 0)

        // The tail: sets newer than the whole store, from the uploader itself and from another client.
        try ben.execute("INSERT INTO note VALUES ('n2', 'f1', 'Two', 'b', 2); UPDATE note SET body = 'a2' WHERE id = 'n1'")
        try await ben.sync()
        try anna.execute("INSERT INTO tag VALUES ('t1', 'home')")
        try await anna.sync()

        let carl = try TestClient("carl", remote: remote.store)
        let report = try await carl.manager.downloadWholeStore()
        let installed = try #require(report.wholeStoreInstalled)
        #expect(installed.client == anna.name)
        #expect(installed.unit == upload.unit)
        #expect(report.appliedSets == 2)
        try await ben.sync()
        #expect(try carl.dump() == anna.dump())
        #expect(try carl.dump() == ben.dump())
        #expect(try carl.count("note") == 2)

        // Nothing is applied twice afterwards.
        let again = try await carl.sync()
        #expect(again.appliedSets == 0)
    }

    @Test("an upload interrupted at any step leaves the previous unit complete and usable")
    func interruptedUploadKeepsPreviousUnit() async throws {
        let remote = try TestRemote(.memory)
        let faults = try remote.faults
        let (anna, _) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        let first = try await anna.manager.uploadWholeStore()
        // Upload calls: 1 = the pending change set and 2 = the last-sync marker (the upload's own
        // sync), 3 = store, 4 = index, 5 = manifest.
        for call in 3...5 {
            try anna.execute("INSERT INTO folder VALUES (?, 'more')", [UUID().uuidString])
            await faults.failCall(call, of: .upload)
            await #expect(throws: SyncError.self) { try await anna.manager.uploadWholeStore() }
            await faults.heal()
            #expect(try await remote.completeUnits(of: "anna") == [first.unit.directoryName], "upload call \(call)")
        }
        await faults.failCall(1, of: .createDirectory)
        await #expect(throws: SyncError.self) { try await anna.manager.uploadWholeStore() }
        await faults.heal()
        #expect(try await remote.completeUnits(of: "anna") == [first.unit.directoryName])

        // The previous unit bootstraps a new client, which then converges through the tail.
        let carl = try TestClient("carl", remote: remote.store)
        let report = try await carl.manager.downloadWholeStore()
        #expect(report.wholeStoreInstalled?.unit == first.unit)
        #expect(try carl.dump() == anna.dump())

        // A failure while removing older units leaves the new unit complete and preferred.
        // Delete calls: 1 = the first older unit (the upload's own sync pushes nothing, so it keeps
        // its last-sync marker and deletes none).
        await faults.failCall(1, of: .delete)
        let second = try await anna.manager.uploadWholeStore()
        await faults.heal()
        #expect(second.cleanupFailure != nil)
        #expect(try await remote.completeUnits(of: "anna") == [first.unit.directoryName, second.unit.directoryName].sorted())
        let dana = try TestClient("dana", remote: remote.store)
        #expect(try await dana.manager.downloadWholeStore().wholeStoreInstalled?.unit == second.unit)

        // The next complete upload removes the old units and the interrupted leftovers.
        let next = try await anna.manager.uploadWholeStore()
        #expect(next.cleanupFailure == nil)
        #expect(try await remote.units(of: "anna") == [next.unit.directoryName])
        #expect(Set(next.removedUnits).isSuperset(of: [first.unit, second.unit]))
    }

    @Test("a damaged or truncated store is refused and the local database is untouched", arguments: Backend.allCases)
    func corruptStoreIsRefused(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'One', 'a', 1)")
        let upload = try await anna.manager.uploadWholeStore()
        try await ben.sync()
        try ben.execute("INSERT INTO tag VALUES ('t-local', 'unpushed')")
        let before = try ben.dump()
        let storePath = "\(TestRemote.wholeStores(of: "anna"))/\(upload.unit.directoryName)/\(WholeStoreCompression.written.storeFileName)"
        let original = try await remote.raw(storePath)

        var damaged = original
        damaged[damaged.count / 2] ^= 0xFF
        for bad in [original.prefix(original.count / 2), damaged, Data()] {
            try await remote.overwrite(storePath, with: Data(bad))
            await #expect(throws: SyncError.self) { try await ben.manager.downloadWholeStore() }
            #expect(try ben.dump() == before)
            #expect(try ben.localStore.hasPendingChanges())
        }
        try await remote.overwrite(storePath, with: original)
        let report = try await ben.manager.downloadWholeStore()
        #expect(report.wholeStoreInstalled != nil)
        #expect(report.pushedChanges == 1)
        #expect(try ben.count("tag") == 1)
    }

    @Test("a unit a newer build wrote (a higher manifest version) is skipped by downloads, holds vacuum back and is a notice in verify")
    func newerUnitIsSkippedAndHoldsVacuum() async throws {
        let remote = try TestRemote(.memory)
        // Every sync records itself, so that vacuum knows ben has applied anna's sets.
        let (anna, ben) = try await TestClient.syncedPair(on: remote, lastSyncRecordInterval: .zero)
        for index in 0..<3 {
            try anna.execute("INSERT INTO tag VALUES ('t\(index)', 'tag')")
            try await anna.sync()
            try await ben.sync()
        }
        let annas = try await anna.manager.uploadWholeStore()
        let bens = try await ben.manager.uploadWholeStore()
        let manifestPath = "\(TestRemote.wholeStores(of: "ben"))/\(bens.unit.directoryName)/\(WholeStoreManifest.manifestFileName)"
        let original = try await remote.raw(manifestPath)
        var manifest = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        #expect(manifest["version"] as? Int == WholeStoreManifest.currentVersion)
        manifest["version"] = 99
        try await remote.overwrite(manifestPath, with: try JSONSerialization.data(withJSONObject: manifest))

        let held = try await anna.manager.vacuum()
        #expect(held.removedSets == [] && held.removedWholeStores == [], "what ben's unit holds cannot be known here, so nothing is removed")
        // The same unit in this build's format holds every set: the vacuum goes ahead.
        try await remote.overwrite(manifestPath, with: original)
        #expect(try await anna.manager.vacuum().removedSets.count == 3)
        try await remote.overwrite(manifestPath, with: try JSONSerialization.data(withJSONObject: manifest))

        let newcomer = try TestClient("carl", remote: remote.store)
        let installed = try #require(try await newcomer.manager.downloadWholeStore().wholeStoreInstalled)
        #expect(installed.client.rawValue == "anna" && installed.unit == annas.unit, "ben's newer unit is skipped for anna's")
        #expect(try newcomer.count("tag") == 3)
        let onlyBens = try TestClient("dora", remote: remote.store)
        let refusal = try await #require(throws: SyncError.self) { _ = try await onlyBens.manager.downloadWholeStore(from: try SyncIdentifier("ben")) }
        #expect(refusal.code == .unsupportedFormat, "ben has no unit this build can read")

        let verification = try await anna.manager.verifyRemote(VerificationOptions())
        let findings = verification.problems.filter { $0.client == "ben" }
        #expect(findings.map(\.kind) == [.uncheckedWholeStore] && findings.allSatisfy { $0.severity == .notice }, "\(verification.problems)")
    }

    @Test("installing a whole store re-bases unpushed local edits instead of dropping them")
    func installKeepsUnpushedEdits() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'One', 'a', 1)")
        try await anna.sync()
        try await ben.sync()
        _ = try await anna.manager.uploadWholeStore()
        try ben.execute("UPDATE note SET title = 'Mine' WHERE id = 'n1'; INSERT INTO tag VALUES ('t1', 'new')")
        let report = try await ben.manager.downloadWholeStore()
        let installed = try #require(report.wholeStoreInstalled)
        #expect(installed.installation.rebasedChanges == 2)
        #expect(report.pushedChanges == 2)
        try await anna.sync()
        #expect(try anna.value("SELECT title FROM note WHERE id = 'n1'") == "Mine".databaseValue)
        #expect(try anna.dump() == ben.dump())
    }

    @Test("a named client's unit is installed even when another is newer")
    func namedClientsUnit() async throws {
        let remote = try TestRemote(.folder)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        try await ben.sync()
        let bens = try await ben.manager.uploadWholeStore()
        let annas = try await anna.manager.uploadWholeStore()
        #expect(bens.unit < annas.unit)
        let carl = try TestClient("carl", remote: remote.store)
        let report = try await carl.manager.downloadWholeStore(from: ben.name)
        #expect(report.wholeStoreInstalled?.client == ben.name)
        #expect(report.wholeStoreInstalled?.unit == bens.unit)
        #expect(try carl.dump() == anna.dump())
        await #expect(throws: SyncError.self) { _ = try await carl.manager.downloadWholeStore(from: carl.name) }
    }

    @Test("a whole store downloaded into a new file opens as a new client that syncs the tail", arguments: Backend.allCases)
    func downloadIntoNewFile(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'One', 'a', 1)")
        let upload = try await anna.manager.uploadWholeStore()
        try ben.execute("INSERT INTO tag VALUES ('t1', 'after the store')")
        try await ben.sync()

        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("notebook.sqlite")
        let installed = try await ben.application.downloadWholeStore(of: TestClient.documentID, to: file)
        #expect(installed.unit == upload.unit)
        await #expect(throws: SyncError.self) {
            try await ben.application.downloadWholeStore(of: TestClient.documentID, to: file)
        }
        await #expect(throws: SyncError.self) {
            try await ben.application.downloadWholeStore(of: try SyncIdentifier("missing"), to: directory.url.appendingPathComponent("x"))
        }

        let database = try DatabaseQueue(path: file.path)
        let store = try LocalStore(writer: database)
        #expect(store.databaseID != anna.localStore.databaseID)
        #expect(try !store.hasPendingChanges())
        let application = ApplicationSyncManager(
            store: remote.store, applicationID: TestClient.applicationID,
            device: DeviceInfo(clientID: try SyncIdentifier("erin"), description: "tool", registeredAt: Date())
        )
        let manager = try DocumentSyncManager(application: application, documentID: TestClient.documentID, localStore: store)
        let report = try await manager.synchronize()
        #expect(report.appliedSets == 1)
        let dump = try await database.read { db in
            try NotesSchema.tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY id").map { "\(table) \($0.description)" }
            }
        }
        #expect(dump == (try ben.dump()))
    }

    @Test("with no whole store, a download says so and changes nothing")
    func noWholeStore() async throws {
        let remote = try TestRemote(.memory)
        let (_, ben) = try await TestClient.syncedPair(on: remote)
        await #expect(throws: SyncError.self) {
            do {
                _ = try await ben.manager.downloadWholeStore()
            } catch let error as SyncError {
                #expect(error.code == .noWholeStore)
                throw error
            }
        }
    }
}
