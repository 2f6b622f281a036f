import Foundation
import GRDB
import SyncCore
import Testing

/// The reference and uniqueness rules of Docs/Conflicts.md, case by case: a client deletes a
/// parent while another files a child in it (in both sync orders), re-parenting into a deleted
/// parent, a cascade against a concurrent child edit, two clients inserting the same unique value.
/// Every case ends with identical databases, clean `foreign_key_check`, and syncs that keep working.
@Suite("Reference and uniqueness rules")
struct ReferenceRuleTests {
    /// One child table per delete action, all referencing `folder`.
    static let schema = """
        CREATE TABLE folder (id TEXT PRIMARY KEY NOT NULL, name TEXT, parent_id TEXT REFERENCES folder(id) ON DELETE CASCADE);
        CREATE TABLE note_null (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folder(id) ON DELETE SET NULL, title TEXT);
        CREATE TABLE note_cascade (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folder(id) ON DELETE CASCADE, title TEXT);
        CREATE TABLE note_plain (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folder(id), title TEXT);
        CREATE TABLE note_required (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT NOT NULL REFERENCES folder(id) ON DELETE RESTRICT, title TEXT);
        CREATE TABLE note_deferred (id TEXT PRIMARY KEY NOT NULL,
            folder_id TEXT REFERENCES folder(id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED, title TEXT);
        CREATE TABLE tag (id TEXT PRIMARY KEY NOT NULL, label TEXT UNIQUE);
        CREATE TABLE note_tag (id TEXT PRIMARY KEY NOT NULL,
            note_id TEXT NOT NULL REFERENCES note_null(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tag(id) ON DELETE CASCADE);
        """
    static let tables = ["folder", "note_null", "note_cascade", "note_plain", "note_required", "note_deferred", "tag", "note_tag"]

    /// What each child table ends with after its folder was deleted under it: the reference
    /// cleared, or the row removed.
    enum Outcome: Equatable { case cleared, removed }
    static let outcomes: [(table: String, outcome: Outcome)] = [
        ("note_null", .cleared), ("note_cascade", .removed), ("note_plain", .cleared),
        ("note_required", .removed), ("note_deferred", .cleared),
    ]

    /// Three clients of a fresh remote, all synced with folder `f` present.
    static func clients(foreignKeysOn: [Bool] = [true, true, true]) async throws -> [TestClient] {
        let remote = try TestRemote(.memory)
        var clients: [TestClient] = []
        for (index, on) in foreignKeysOn.enumerated() {
            clients.append(try TestClient("client-\(index)", remote: remote.store, schema: schema, tables: tables, foreignKeys: on))
        }
        try clients[0].execute("INSERT INTO folder VALUES ('f', 'Trips', NULL)")
        for client in clients { try await client.sync() }
        for client in clients { try await client.sync() }
        return clients
    }

    /// Syncs every client in turn until nothing moves, then checks that all are identical and clean.
    static func settle(_ clients: [TestClient], _ context: String) async throws {
        for _ in 0..<4 {
            var moved = false
            for client in clients {
                let report = try await client.sync()
                moved = moved || report.appliedSets > 0 || report.pushedChanges > 0
            }
            if !moved { break }
        }
        let reference = try clients[0].dump(tables: tables)
        for client in clients {
            let dump = try client.dump(tables: tables)
            #expect(dump == reference, "\(context): \(client.name) differs: \(Set(dump).symmetricDifference(reference).sorted())")
            let violations = try client.foreignKeyViolations()
            #expect(violations.isEmpty, "\(context): \(client.name) has dangling references \(violations)")
            #expect(try client.integrityCheck() == ["ok"])
            #expect(try !client.localStore.hasPendingChanges(), "\(context): \(client.name) still has pending changes")
        }
    }

    static func childOutcome(_ table: String, key: String, on client: TestClient) throws -> Outcome? {
        let folder = try client.value("SELECT folder_id FROM \(table) WHERE id = ?", [key])
        let exists = try client.value("SELECT count(*) FROM \(table) WHERE id = ?", [key]) == 1.databaseValue
        if !exists { return .removed }
        return folder == .null ? .cleared : nil
    }

    @Test("a child filed into a folder deleted elsewhere is settled by the schema's action, in either sync order", arguments: [false, true])
    func deleteParentAgainstInsertChild(childSyncsFirst: Bool) async throws {
        let clients = try await Self.clients()
        let (deleter, filer) = (clients[0], clients[1])
        try deleter.execute("DELETE FROM folder WHERE id = 'f'")
        for (table, _) in Self.outcomes {
            try filer.execute("INSERT INTO \(table) VALUES (?, 'f', 'filed')", ["\(table)-1"])
        }
        if childSyncsFirst {
            try await filer.sync()
            let report = try await deleter.sync()
            #expect(report.warnings.count >= Self.outcomes.count, "every child settled is reported: \(report.warnings)")
        } else {
            try await deleter.sync()
            try await filer.sync()
        }
        try await Self.settle(clients, "child syncs first: \(childSyncsFirst)")
        for client in clients {
            for (table, outcome) in Self.outcomes {
                #expect(try Self.childOutcome(table, key: "\(table)-1", on: client) == outcome, "\(table) on \(client.name)")
            }
            #expect(try client.count("folder") == 0)
        }
        let removed = try clients.flatMap { try $0.localStore.removedRows() }
        for (table, outcome) in Self.outcomes where outcome == .removed {
            #expect(removed.contains { $0.table == table && $0.key == "\(table)-1".databaseValue && $0.valuesJSON.contains("filed") },
                    "the removed \(table) row's values are kept")
        }
    }

    @Test("moving a note into a folder deleted elsewhere clears the reference everywhere")
    func reparentIntoDeletedParent() async throws {
        let clients = try await Self.clients()
        try clients[0].execute("INSERT INTO folder VALUES ('g', 'Work', NULL); INSERT INTO note_null VALUES ('n', 'g', 'note')")
        for client in clients { try await client.sync() }
        try clients[1].execute("DELETE FROM folder WHERE id = 'f'")
        try clients[2].execute("UPDATE note_null SET folder_id = 'f' WHERE id = 'n'")
        try await clients[2].sync()
        try await clients[1].sync()
        try await Self.settle(clients, "re-parent")
        #expect(try clients[0].value("SELECT folder_id FROM note_null WHERE id = 'n'") == .null)
    }

    @Test("a cascade removes a child another client edited meanwhile, on every client")
    func cascadeAgainstConcurrentChildEdit() async throws {
        let clients = try await Self.clients()
        try clients[0].execute("INSERT INTO note_cascade VALUES ('c', 'f', 'draft')")
        for client in clients { try await client.sync() }
        try clients[1].execute("DELETE FROM folder WHERE id = 'f'")
        try clients[2].execute("UPDATE note_cascade SET title = 'edited meanwhile' WHERE id = 'c'")
        try await clients[2].sync()
        try await clients[1].sync()
        try await Self.settle(clients, "cascade vs edit")
        #expect(try clients[0].count("note_cascade") == 0)
    }

    @Test("a child moved to another folder before the deletion arrived survives with its new folder")
    func moveAwayBeforeDeletionArrives() async throws {
        let clients = try await Self.clients()
        try clients[0].execute("INSERT INTO folder VALUES ('g', 'Work', NULL); INSERT INTO note_null VALUES ('n', 'f', 'note')")
        for client in clients { try await client.sync() }
        try clients[1].execute("DELETE FROM folder WHERE id = 'f'")
        try clients[2].execute("UPDATE note_null SET folder_id = 'g' WHERE id = 'n'")
        try await clients[1].sync()
        try await clients[2].sync()
        try await Self.settle(clients, "move away")
        #expect(try clients[0].count("note_null") == 1)
    }

    @Test("a self-referencing chain cascades to every level on clients that never saw the deletion's children")
    func selfReferenceChain() async throws {
        let clients = try await Self.clients()
        try clients[0].execute("DELETE FROM folder WHERE id = 'f'")
        try clients[1].execute("""
            INSERT INTO folder VALUES ('f1', 'child', 'f'); INSERT INTO folder VALUES ('f2', 'grandchild', 'f1');
            INSERT INTO note_cascade VALUES ('deep', 'f2', 'deep note')
            """)
        try await clients[1].sync()
        try await clients[0].sync()
        try await Self.settle(clients, "self reference")
        #expect(try clients[2].count("folder") == 0)
        #expect(try clients[2].count("note_cascade") == 0)
    }

    @Test("an application with foreign keys off deletes a parent: its children are settled before the push")
    func foreignKeysOffClient() async throws {
        let clients = try await Self.clients(foreignKeysOn: [false, true, true])
        try clients[1].execute("INSERT INTO note_cascade VALUES ('c', 'f', 'x'); INSERT INTO note_null VALUES ('n', 'f', 'y')")
        try await clients[1].sync()
        try await clients[0].sync()
        try clients[0].execute("DELETE FROM folder WHERE id = 'f'")
        let report = try await clients[0].sync()
        #expect(report.warnings.contains { if case .settledLocally = $0 { true } else { false } })
        try await Self.settle(clients, "foreign keys off")
        #expect(try clients[1].count("note_cascade") == 0)
        #expect(try clients[1].value("SELECT folder_id FROM note_null WHERE id = 'n'") == .null)
    }

    @Test("two clients insert the same unique label: every client keeps the row with the smaller key", arguments: [false, true])
    func uniqueCollision(smallerSyncsFirst: Bool) async throws {
        let clients = try await Self.clients()
        try clients[0].execute("INSERT INTO tag VALUES ('t-a', 'urgent')")
        try clients[1].execute("INSERT INTO tag VALUES ('t-b', 'urgent'); INSERT INTO note_null VALUES ('n', NULL, 'x')")
        try clients[1].execute("INSERT INTO note_tag VALUES ('nt', 'n', 't-b')")
        let order = smallerSyncsFirst ? [clients[0], clients[1]] : [clients[1], clients[0]]
        for client in order { try await client.sync() }
        try await Self.settle(clients, "unique, smaller first: \(smallerSyncsFirst)")
        #expect(try clients[2].dump(tables: ["tag"]) == clients[0].dump(tables: ["tag"]))
        #expect(try clients[2].value("SELECT id FROM tag WHERE label = 'urgent'") == "t-a".databaseValue)
        let removed = try clients.flatMap { try $0.localStore.removedRows() }
        #expect(removed.contains { $0.table == "tag" && $0.key == "t-b".databaseValue })
        #expect(try clients[0].count("note_tag") == 0, "the join row of the removed tag follows it (ON DELETE CASCADE)")
    }

    @Test("a key deleted and created again comes back on every client, also when its set arrives late")
    func keyCreatedAgain() async throws {
        let clients = try await Self.clients()
        let (anna, ben) = (clients[0], clients[1])
        try anna.execute("INSERT INTO tag VALUES ('k', 'first life')")
        for client in clients { try await client.sync() }
        try anna.execute("DELETE FROM tag WHERE id = 'k'")
        try await anna.sync()
        try await ben.sync()
        try anna.execute("INSERT INTO tag VALUES ('k', 'second life')")
        try await anna.sync()
        // Ben's own write moves his clock past Anna's set, so it arrives as a late set.
        try ben.execute("INSERT INTO note_null VALUES ('later', NULL, 'Ben writes after Anna')")
        _ = try ben.localStore.currentClock()
        try await Self.settle(clients, "key created again")
        #expect(try ben.value("SELECT label FROM tag WHERE id = 'k'") == "second life".databaseValue)
        try anna.execute("UPDATE tag SET label = 'edited' WHERE id = 'k'")
        try await Self.settle(clients, "edit after the re-creation")
        #expect(try clients[2].value("SELECT label FROM tag WHERE id = 'k'") == "edited".databaseValue)
    }

    @Test("a change refused by a CHECK constraint is skipped and reported; the rest of the set applies")
    func checkConstraintRejection() async throws {
        let remote = try TestRemote(.memory)
        let strict = "CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, amount INTEGER CHECK (amount >= 0), name TEXT);"
        let loose = "CREATE TABLE item (id TEXT PRIMARY KEY NOT NULL, amount INTEGER, name TEXT);"
        let writer = try TestClient("writer", remote: remote.store, schema: loose, tables: ["item"])
        let reader = try TestClient("reader", remote: remote.store, schema: strict, tables: ["item"])
        try await writer.sync()
        try await reader.sync()
        try writer.execute("INSERT INTO item VALUES ('bad', -1, 'negative'); INSERT INTO item VALUES ('good', 1, 'fine')")
        try await writer.sync()
        let report = try await reader.sync()
        #expect(report.warnings.contains { if case .apply(.changeRejectedByConstraint(table: "item", _, _), _) = $0 { true } else { false } })
        let items = try reader.dump(tables: ["item"])
        #expect(items.count == 1, "\(items)")
        try reader.execute("INSERT INTO item VALUES ('later', 2, 'still syncing')")
        #expect(try await reader.sync().pushedChanges == 1, "the sync goes on")
    }
}

extension TestClient {
    /// The rows `PRAGMA foreign_key_check` reports, as text.
    func foreignKeyViolations() throws -> [String] {
        try database.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map(\.description) }
    }

    /// What `PRAGMA integrity_check` says.
    func integrityCheck() throws -> [String] {
        try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}
