import Foundation
import GRDB
import SyncCore
import TestSupport

/// A real SQLite database file in a fresh temporary directory, removed when released.
final class TemporaryDatabase {
    let directory: TemporaryDirectory
    let url: URL
    let pool: DatabasePool
    let store: LocalStore

    /// Creates the database, runs `schema`, opens a ``LocalStore`` and registers `tables`; every
    /// connection knows the collations and functions of `definitions`, as an app's would.
    init(
        schema: String = TemporaryDatabase.itemsSchema, tables: [String] = ["items"],
        definitions: (collations: [DatabaseCollation], functions: [DatabaseFunction]) = ([], [])
    ) throws {
        directory = try TemporaryDirectory(prefix: "synccore")
        url = directory.appending("app.sqlite")
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            for collation in definitions.collations { db.add(collation: collation) }
            for function in definitions.functions { db.add(function: function) }
        }
        pool = try DatabasePool(path: url.path, configuration: configuration)
        try pool.write { db in try db.execute(sql: schema) }
        store = try LocalStore(writer: pool)
        for table in tables {
            try store.register(table: table)
        }
    }

    static let itemsSchema = """
        CREATE TABLE items (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT,
            quantity INTEGER,
            price REAL,
            photo BLOB,
            CHECK (quantity IS NULL OR quantity >= 0));
        """

    /// A file path in the temporary directory.
    func file(_ name: String) -> URL {
        directory.appending(name)
    }

    /// All pending changes, in order.
    func pendingChanges() throws -> [RowChange] {
        var changes: [RowChange] = []
        try store.readPendingChanges { changes.append($0) }
        return changes
    }

    /// Writes the pending changes to a set file and marks them pushed.
    func push(setID: String = UUID().uuidString) throws -> URL {
        let url = file("\(setID).syncchg")
        let pushed = try store.writePendingChangeSet(to: url, setID: setID)
        if let pushed {
            try store.markPushed(pushed)
        }
        return url
    }

    /// The rows of `items` as `id → [name, quantity, price, photo]`.
    func items() throws -> [String: [DatabaseValue]] {
        try pool.read { db in
            var result: [String: [DatabaseValue]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, name, quantity, price, photo FROM items") {
                result[row["id"]] = [row["name"], row["quantity"], row["price"], row["photo"]]
            }
            return result
        }
    }
}
