import Foundation
import GRDB
import SyncCore
import Testing

/// A whole-store install on a client that already has data and unpushed changes is a merge: each
/// unpushed change keeps its original clock and is decided against the store as an incoming change
/// would be. The four cases a new user met (each failed before the merge), on the notes schema
/// (`note_tag` sorts before `note`, both `ON DELETE CASCADE`).
@Suite("Whole-store re-base keeps unpushed changes exactly as they were")
struct WholeStoreRebaseTests {
    /// Anna and Ben with one folder, one note in it, one tag and the join row, a whole store of
    /// Anna's uploaded, everyone synced.
    static func populated() async throws -> (TestRemote, TestClient, TestClient) {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("""
            INSERT INTO folder VALUES ('f', 'Trips');
            INSERT INTO note VALUES ('n', 'f', 'Lisbon', 'body', 1);
            INSERT INTO tag VALUES ('t', 'travel');
            INSERT INTO note_tag VALUES ('nt', 'n', 't');
            """)
        try await anna.sync()
        try await ben.sync()
        _ = try await anna.manager.uploadWholeStore()
        return (remote, anna, ben)
    }

    static func expectConverged(_ clients: [TestClient], _ context: Comment) async throws {
        for _ in 0..<3 {
            for client in clients { try await client.sync() }
        }
        let reference = try clients[0].dump()
        for client in clients {
            #expect(try client.dump() == reference, context)
            #expect(try client.foreignKeyViolations().isEmpty, context)
            #expect(try client.integrityCheck() == ["ok"], context)
            #expect(try !client.localStore.hasPendingChanges(), context)
        }
    }

    @Test("a pending deletion survives pull-store and reaches every client")
    func pendingDeletionKept() async throws {
        let (_, anna, ben) = try await Self.populated()
        try ben.execute("DELETE FROM note WHERE id = 'n'")
        let report = try await ben.manager.downloadWholeStore()
        #expect(report.wholeStoreInstalled != nil)
        #expect(try ben.count("note") == 0, "the deletion is still applied here")
        try await Self.expectConverged([anna, ben], "pending deletion")
        #expect(try anna.count("note") == 0, "and it reached the other client")
        #expect(try anna.count("note_tag") == 0, "with the cascade of its join row")
    }

    @Test("an older local edit loses to a newer one the store holds; a newer local edit wins")
    func originalClocksDecide() async throws {
        let (_, anna, ben) = try await Self.populated()
        try ben.execute("UPDATE note SET title = 'older, from ben' WHERE id = 'n'")
        // Made offline a day before Anna's edit (the recorded wall-clock reading, not stamped yet),
        // so the order of the two edits does not depend on how fast this test runs.
        try ben.execute("UPDATE rollingsync_changes SET wall = wall - 1 WHERE clock IS NULL")
        try ben.execute("UPDATE note SET body = 'ben keeps this' WHERE id = 'n'")
        try anna.execute("UPDATE note SET title = 'newer, from anna' WHERE id = 'n'")
        try await anna.sync()
        _ = try await anna.manager.uploadWholeStore()
        let report = try await ben.manager.downloadWholeStore()
        #expect(report.conflicts.contains { $0.conflict.column == "title" && $0.resolution == .remote })
        try await Self.expectConverged([anna, ben], "clocks")
        #expect(try ben.value("SELECT title FROM note WHERE id = 'n'") == "newer, from anna".databaseValue)
        #expect(try anna.value("SELECT body FROM note WHERE id = 'n'") == "ben keeps this".databaseValue)
    }

    @Test("child rows whose table sorts before the parent's are not cascaded away by the install")
    func childRowsKept() async throws {
        let (_, anna, ben) = try await Self.populated()
        _ = try await ben.manager.downloadWholeStore()
        #expect(try ben.count("note_tag") == 1)
        #expect(try ben.count("note") == 1)
        try await Self.expectConverged([anna, ben], "children")
        #expect(try anna.count("note_tag") == 1)
    }

    @Test("an unpushed row referencing a row the store lacks installs, and a re-base never blocks a sync")
    func unpushedReferenceToMissingRow() async throws {
        let (_, anna, ben) = try await Self.populated()
        try ben.execute("""
            INSERT INTO folder VALUES ('g', 'New folder, unpushed');
            INSERT INTO note VALUES ('m', 'g', 'In the new folder', NULL, 2);
            """)
        // Anna deletes the folder Ben's unpushed note is not in, and the note Ben tags meanwhile.
        try ben.execute("INSERT INTO tag VALUES ('t2', 'new tag'); INSERT INTO note_tag VALUES ('nt2', 'n', 't2')")
        try anna.execute("DELETE FROM note WHERE id = 'n'")
        try await anna.sync()
        _ = try await anna.manager.uploadWholeStore()
        let report = try await ben.manager.downloadWholeStore()
        #expect(report.wholeStoreInstalled != nil)
        #expect(try ben.count("note") == 1, "Ben's unpushed note is kept, Anna's deletion applied")
        try await Self.expectConverged([anna, ben], "missing rows")
        #expect(try anna.value("SELECT folder_id FROM note WHERE id = 'm'") == "g".databaseValue)
        #expect(try anna.count("note_tag") == 0, "the join row to the deleted note follows it (cascade)")
        let removed = try ben.localStore.removedRows()
        #expect(removed.contains { $0.table == "note_tag" && $0.key == "nt2".databaseValue }, "and its values are kept")
    }

    @Test("a pending deletion of a parent removes the store's children of it by the schema's rule")
    func pendingParentDeletionCascadesStoreChildren() async throws {
        let (_, anna, ben) = try await Self.populated()
        try anna.execute("INSERT INTO note VALUES ('n2', 'f', 'Porto', NULL, 3)")
        try await anna.sync()
        _ = try await anna.manager.uploadWholeStore()
        try ben.execute("DELETE FROM folder WHERE id = 'f'")
        _ = try await ben.manager.downloadWholeStore()
        #expect(try ben.count("note") == 0, "n (cascaded here) and n2 (only in the store) both follow the folder")
        try await Self.expectConverged([anna, ben], "parent deletion")
        #expect(try anna.count("folder") == 0 && anna.count("note") == 0)
    }
}
