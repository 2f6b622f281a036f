import Foundation
import GRDB
import Testing

@testable import SyncCore

@Suite("Installing a whole store in place")
struct WholeStoreInstallTests {
    /// A snapshot of `source` written to a file of `target`'s directory.
    private func snapshot(of source: TemporaryDatabase, into target: TemporaryDatabase) throws -> URL {
        let url = target.file("snapshot-\(UUID().uuidString).sqlite")
        try source.store.snapshot(to: url)
        return url
    }

    @Test("synced rows and bookkeeping are replaced, other tables kept, unpushed changes re-based and reported")
    func installRebases() throws {
        let uploader = try TemporaryDatabase()
        try uploader.pool.write { db in
            try db.execute(sql: """
                INSERT INTO items (id, name, quantity) VALUES ('a', 'apple', 1), ('b', 'bread', 2), ('c', 'cheese', 3);
                """)
        }
        _ = try uploader.push()
        let local = try TemporaryDatabase(schema: TemporaryDatabase.itemsSchema + "CREATE TABLE drafts (id TEXT PRIMARY KEY, body TEXT);")
        try local.pool.write { db in
            try db.execute(sql: """
                INSERT INTO drafts VALUES ('d1', 'not synced');
                INSERT INTO items (id, name, quantity) VALUES ('a', 'old apple', 9), ('t', 'to delete', 1);
                """)
        }
        // The uploader applies that set and deletes 't' (a tombstone); a later local set the
        // uploader never sees inserts 'x'.
        _ = try uploader.store.applyChangeSet(at: try local.push())
        try uploader.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 't'; UPDATE items SET name = 'apple' WHERE id = 'a'") }
        _ = try uploader.push()
        try local.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('x', 'local only', 5)") }
        _ = try local.push()
        // Unpushed: an update of a row the store has, an insert, an update of a row the store
        // deleted, and an update of a row the store never had.
        try local.pool.write { db in
            try db.execute(sql: """
                UPDATE items SET quantity = 10 WHERE id = 'a';
                INSERT INTO items (id, name, quantity) VALUES ('n', 'new', 4);
                UPDATE items SET name = 'edited' WHERE id = 't';
                UPDATE items SET name = 'edited too' WHERE id = 'x';
                """)
        }
        let url = try snapshot(of: uploader, into: local)
        let contents = try LocalStore.inspectSnapshot(at: url, configuration: Configuration())
        #expect(contents.appliedSetIDs.count == 3)
        #expect(contents.pendingChanges == 0)

        let installation = try local.store.installWholeStore(at: url)
        #expect(installation.appliedSetCount == 3)
        #expect(installation.rebasedChanges == 3)
        #expect(installation.updatesOfDeletedRows == [.init(table: "items", key: "\("t".databaseValue)")])
        let items = try local.items()
        #expect(Set(items.keys) == ["a", "b", "c", "n", "x"])
        #expect(items["a"]?[0] == "apple".databaseValue)
        #expect(items["a"]?[1] == 10.databaseValue)
        #expect(items["x"]?[0] == "edited too".databaseValue)
        #expect(items["x"]?[1] == 5.databaseValue)
        #expect(try local.pool.read { db in try String.fetchOne(db, sql: "SELECT body FROM drafts") } == "not synced")
        #expect(try local.store.appliedSetIDs() == contents.appliedSetIDs)
        let pending = try local.pendingChanges()
        #expect(Set(pending.map { $0.key }) == ["a".databaseValue, "n".databaseValue, "x".databaseValue])

        // Nothing local was lost: a delete stays a delete after re-basing.
        try local.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 'b'") }
        let again = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
        #expect(again.rebasedChanges == 4)
        #expect(try local.items()["b"] == nil)
    }

    @Test("an unpushed re-creation of a key the store deleted survives the install when it is newer than the deletion, not otherwise")
    func recreationMeetsStoreDeletion() throws {
        for newer in [true, false] {
            let uploader = try TemporaryDatabase()
            try uploader.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('t', 'first')") }
            let local = try TemporaryDatabase()
            _ = try local.store.applyChangeSet(at: try uploader.push())
            let recreate = { try local.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 't'; INSERT INTO items (id, name) VALUES ('t', 'again')") } }
            if !newer {
                try recreate()
                _ = try local.pendingChanges()  // stamped before the uploader's deletion
            }
            try uploader.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 't'") }
            _ = try uploader.push()
            if newer {
                try ChangeSetApplyTests.advanceClock(of: local)
                try recreate()
            }
            let installation = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
            if newer {
                #expect(try local.items()["t"]?[0] == "again".databaseValue)
                #expect(try local.pendingChanges().map(\.kind) == [.insert], "the re-creation is still pushed")
                #expect(installation.updatesOfDeletedRows.isEmpty)
            } else {
                #expect(try local.items()["t"] == nil)
                #expect(try local.pendingChanges().isEmpty)
                #expect(installation.updatesOfDeletedRows == [.init(table: "items", key: "\("t".databaseValue)")])
            }
        }
    }

    @Test("an unpushed local deletion yields to the store's newer re-creation of the key")
    func localDeletionMeetsStoreRecreation() throws {
        let uploader = try TemporaryDatabase()
        try uploader.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('t', 'first')") }
        let local = try TemporaryDatabase()
        _ = try local.store.applyChangeSet(at: try uploader.push())
        try local.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 't'") }
        _ = try local.pendingChanges()  // the local deletion, stamped now
        try ChangeSetApplyTests.advanceClock(of: uploader)
        try uploader.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 't'; INSERT INTO items (id, name) VALUES ('t', 'again')") }
        _ = try uploader.push()
        _ = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
        #expect(try local.items()["t"]?[0] == "again".databaseValue)
        #expect(try local.pendingChanges().isEmpty, "the older deletion is not pushed")
    }

    @Test("an unpushed local creation loses whole to the store's newer creation of the key; an older one keeps the local row")
    func localCreationMeetsStoreCreation() throws {
        for storeIsNewer in [true, false] {
            let uploader = try TemporaryDatabase()
            let local = try TemporaryDatabase()
            let createLocally = { try local.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('k', 'local', 1)") } }
            if storeIsNewer {
                try createLocally()
                _ = try local.pendingChanges()  // stamped before the store's creation
                try ChangeSetApplyTests.advanceClock(of: uploader)
            }
            try uploader.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES ('k', 'store', 2)") }
            _ = try uploader.push()
            if !storeIsNewer {
                try ChangeSetApplyTests.advanceClock(of: local)
                try createLocally()
            }
            _ = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
            if storeIsNewer {
                #expect(try local.items()["k"]?.prefix(2) == ["store".databaseValue, 2.databaseValue])
                #expect(try local.pendingChanges().isEmpty, "the losing creation is not pushed")
            } else {
                #expect(try local.items()["k"]?.prefix(2) == ["local".databaseValue, 1.databaseValue])
                #expect(try local.pendingChanges().map(\.kind) == [.insert])
            }
        }
    }

    @Test("a table the store does not sync keeps the clocks of its recent applies: a late older write stays stale after the install")
    func tableMissingFromStoreKeepsAppliedClocks() throws {
        let schema = TemporaryDatabase.itemsSchema + "CREATE TABLE drafts (id TEXT PRIMARY KEY NOT NULL, body TEXT);"
        let (local, older, newer) = (
            try TemporaryDatabase(schema: schema, tables: ["items", "drafts"]),
            try TemporaryDatabase(schema: schema, tables: ["items", "drafts"]),
            try TemporaryDatabase(schema: schema, tables: ["items", "drafts"])
        )
        try local.pool.write { db in try db.execute(sql: "INSERT INTO drafts VALUES ('d', 'first')") }
        let creation = try local.push()
        _ = try older.store.applyChangeSet(at: creation)
        _ = try newer.store.applyChangeSet(at: creation)
        try older.pool.write { db in try db.execute(sql: "UPDATE drafts SET body = 'older' WHERE id = 'd'") }
        let olderEdit = try older.push()
        // The newer writer saw the older edit first, so its own edit has the larger clock.
        _ = try newer.store.applyChangeSet(at: olderEdit)
        try newer.pool.write { db in try db.execute(sql: "UPDATE drafts SET body = 'newer' WHERE id = 'd'") }
        let newerEdit = try newer.push()
        let applied = try local.store.applyChangeSet(at: newerEdit)
        #expect(applied.staleValuesIgnored == 0)
        let appendedClocks = try local.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_applied_clocks") }
        #expect(appendedClocks == 1, "the newer edit's clock is appended, not folded yet")

        // A store of a client that syncs only items: the drafts stay this database's, with their clocks.
        let uploader = try TemporaryDatabase()
        try uploader.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('i', 'item')") }
        _ = try uploader.push()
        _ = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
        #expect(try local.items()["i"] != nil)

        let late = try local.store.applyChangeSet(at: olderEdit)
        #expect(late.staleValuesIgnored == 1, "the older edit arrives after the newer one it lost to")
        #expect(try local.pool.read { db in try String.fetchOne(db, sql: "SELECT body FROM drafts WHERE id = 'd'") } == "newer")
    }

    @Test("a store whose app spells a table's name in another case installs that table's clocks and tombstones too")
    func tableNameInAnotherCase() throws {
        let source = try TemporaryDatabase(schema: "CREATE TABLE Items (id TEXT PRIMARY KEY NOT NULL, name TEXT);", tables: ["Items"])
        try source.pool.write { db in try db.execute(sql: "INSERT INTO Items VALUES ('a', 'kept'), ('b', 'deleted')") }
        _ = try source.push()
        try source.pool.write { db in try db.execute(sql: "DELETE FROM Items WHERE id = 'b'") }
        _ = try source.push()
        let local = try TemporaryDatabase(schema: "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT);", tables: ["items"])
        let url = try snapshot(of: source, into: local)
        _ = try local.store.installWholeStore(at: url)
        #expect(try local.pool.read { try String.fetchAll($0, sql: "SELECT id FROM items") } == ["a"])
        // Without them an older write from a client that missed the deletion would bring 'b' back.
        let bookkeeping = "SELECT (SELECT count(*) FROM rollingsync_cell_clocks) || '/' || (SELECT group_concat(row_key) FROM rollingsync_tombstones)"
        let stored = try DatabaseQueue(path: url.path).read { try String.fetchOne($0, sql: bookkeeping) }
        #expect(stored?.hasSuffix("/b") == true)
        #expect(try local.pool.read { try String.fetchOne($0, sql: bookkeeping) } == stored)
    }

    @Test("a snapshot written with an older schema installs keeping the columns it lacks; a newer one, or not a database, is refused")
    func snapshotsAcrossSchemas() throws {
        let older = try TemporaryDatabase(
            schema: "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT, quantity INTEGER, price REAL);"
        )
        try older.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('o', 'from the older store')") }
        let local = try TemporaryDatabase()
        try local.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name, photo) VALUES ('k', 'keep', x'01')") }
        _ = try local.store.installWholeStore(at: try snapshot(of: older, into: local))
        #expect(try local.items()["k"] == ["keep".databaseValue, .null, .null, Data([1]).databaseValue], "the unpushed row keeps its photo")
        #expect(try local.items()["o"]?[0] == "from the older store".databaseValue)
        #expect(try local.store.hasPendingChanges())

        let newer = try TemporaryDatabase(
            schema: TemporaryDatabase.itemsSchema + "; ALTER TABLE items ADD COLUMN color TEXT;"
        )
        let before = try local.items()
        #expect(throws: LocalStoreError(.upgradeRequired, table: "items", column: "color")) {
            try local.store.installWholeStore(at: try snapshot(of: newer, into: local))
        }
        #expect(try local.items() == before)
        #expect(try local.store.hasPendingChanges())

        let garbage = local.file("garbage.sqlite")
        try Data(repeating: 0x42, count: 8192).write(to: garbage)
        #expect(throws: (any Error).self) { try LocalStore.inspectSnapshot(at: garbage, configuration: Configuration()) }
        #expect(try local.items() == before)
    }
    @Test(
        "a store whose cell clocks name a writer it does not list is refused, and nothing changes",
        arguments: [false, true]
    )
    func storeWithUnlistedWriter(tableIDsDiffer: Bool) throws {
        // With its tables numbered as in the store, the local database takes the store's cell
        // clocks as they are; otherwise it maps them.
        let source = try TemporaryDatabase()
        try source.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('s', 'from the store')") }
        _ = try source.push()
        let local = tableIDsDiffer
            ? try TemporaryDatabase(schema: TemporaryDatabase.itemsSchema + "CREATE TABLE other (id TEXT PRIMARY KEY NOT NULL);", tables: ["other", "items"])
            : try TemporaryDatabase()
        try local.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('k', 'unpushed')") }
        let url = try snapshot(of: source, into: local)
        let damaged = try DatabaseQueue(path: url.path)
        try damaged.write { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_cell_clocks") ?? 0 > 0)
            try db.execute(sql: "DELETE FROM rollingsync_writers")
        }
        try damaged.close()
        let before = try local.items()
        #expect(throws: WholeStoreFileError.self) { try local.store.installWholeStore(at: url) }
        #expect(try local.items() == before)
        #expect(try local.store.hasPendingChanges())
    }

    @Test("a table whose store copy has the same columns is copied whole, its capture triggers kept as they were: later writes are captured")
    func copiedTableKeepsCapture() throws {
        let uploader = try TemporaryDatabase()
        try uploader.pool.write { db in
            for index in 0..<300 {
                try db.execute(sql: "INSERT INTO items (id, name, quantity) VALUES (?, ?, ?)", arguments: ["\(UUID())", "item \(index)", index])
            }
            try db.execute(sql: "INSERT INTO items (id, name) VALUES ('r1', 'one'), ('r2', 'two')")
        }
        _ = try uploader.push()
        let local = try TemporaryDatabase()
        try local.pool.write { db in try db.execute(sql: "INSERT INTO items (id, name) VALUES ('gone', 'replaced by the store')") }
        _ = try local.push()
        let triggers = { try local.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name || ': ' || sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
        } }
        let before = try triggers()
        #expect(!before.isEmpty)

        _ = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
        #expect(try triggers() == before)
        #expect(try local.items() == (try uploader.items()))
        #expect(try local.pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        #expect(try local.pendingChanges().isEmpty)

        try local.pool.write { db in
            try db.execute(sql: """
                UPDATE items SET name = 'edited' WHERE id = 'r1';
                DELETE FROM items WHERE id = 'r2';
                INSERT INTO items (id, name) VALUES ('new', 'after the install');
                """)
        }
        let pending = try local.pendingChanges().map { "\($0.kind) \($0.key)" }
        #expect(Set(pending) == ["update \("r1".databaseValue)", "delete \("r2".databaseValue)", "insert \("new".databaseValue)"])
    }
    @Test("indexes by the app's own collation and functions follow this device's definitions, not the uploader's")
    func appDefinedIndexesFollowThisDevice() throws {
        let schema = TemporaryDatabase.itemsSchema + """
            CREATE INDEX items_by_name ON items (name COLLATE app);
            CREATE INDEX items_by_label ON items (label(name));
            """
        // The same names, defined differently on the two devices (a locale's, say).
        func definitions(reversed: Bool) -> (collations: [DatabaseCollation], functions: [DatabaseFunction]) {
            (
                [DatabaseCollation("app") { reversed ? $1.compare($0) : $0.compare($1) }],
                [DatabaseFunction("label", argumentCount: 1, pure: true) { values in
                    let name = String.fromDatabaseValue(values[0]) ?? ""
                    return reversed ? name.uppercased() : name.lowercased()
                }]
            )
        }
        let uploader = try TemporaryDatabase(schema: schema, definitions: definitions(reversed: true))
        let names = (0..<200).map { String(format: "Name %03d", $0) }
        try uploader.pool.write { db in
            for name in names.shuffled() {
                try db.execute(sql: "INSERT INTO items (id, name) VALUES (?, ?)", arguments: [UUID().uuidString, name])
            }
        }
        _ = try uploader.push()
        let local = try TemporaryDatabase(schema: schema, definitions: definitions(reversed: false))

        _ = try local.store.installWholeStore(at: try snapshot(of: uploader, into: local))
        let (check, ordered, found) = try local.pool.read { db in
            (
                try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                try String.fetchAll(db, sql: "SELECT name FROM items INDEXED BY items_by_name ORDER BY name COLLATE app"),
                try String.fetchOne(db, sql: "SELECT name FROM items INDEXED BY items_by_label WHERE label(name) = 'name 007'")
            )
        }
        #expect(check == ["ok"])
        #expect(ordered == names)
        #expect(found == "Name 007")
    }
}
