import Foundation
import TestSupport
import Testing

/// A to-do app's database with integer keys (`lists` with `AUTOINCREMENT`, `items` referencing
/// them), written on three clients at once by `sqlite3` processes while `rollsync sync` processes
/// run beside them: every list and item arrives everywhere, every item stays under its list, no id
/// `sqlite3` handed out ever changes, and a quiet system stops pushing.
@Suite("rollsync processes: integer keys written by sqlite3 on three clients")
struct IntegerKeyProcessTests {
    static let schema = """
        PRAGMA journal_mode = WAL;
        CREATE TABLE lists (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
        CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            list_id INTEGER REFERENCES lists(id) ON DELETE CASCADE,
            title TEXT NOT NULL);
        CREATE TABLE tags (label TEXT, item_id INTEGER REFERENCES items(id) ON DELETE CASCADE);
        """

    static func sqlite3Path() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/sqlite3") {
            return "\(directory)/sqlite3"
        }
        throw TestSupportError("the sqlite3 command-line tool is not on PATH (Debian: apt-get install sqlite3)")
    }

    /// Runs `sql` with the sqlite3 tool (foreign keys on, waiting for locks) and returns its output lines.
    static func sqlite(_ file: String, _ sql: String) async throws -> [String] {
        let outcome = try await TestProcess.run(try sqlite3Path(), ["-batch", "-bail", "-cmd", ".timeout 60000", "-cmd", "PRAGMA foreign_keys = ON", file, sql])
        try #require(outcome.status == 0, "sqlite3 '\(sql)' on \(file): \(outcome.standardError)")
        return outcome.standardOutput.split(separator: "\n").map(String.init)
    }

    static func sync(_ file: String) async throws -> Int {
        let outcome = try await RollsyncProcess.run(["sync", "--db", file, "--json"])
        try #require(outcome.status == 0, "sync of \(file): \(outcome.standardError)")
        return try outcome.jsonObjects().last?["pushedChanges"] as? Int ?? -1
    }

    @Test("lists and items created at once on three clients converge, each item under its list, no id moved", .timeLimit(.minutes(10)))
    func todoApp() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let clients = (0..<3).map { workspace.path("todo-\($0).sqlite") }
        for client in clients {
            _ = try await Self.sqlite(client, Self.schema)
            let initialised = try await RollsyncProcess.run(["init", "--db", client, "--remote", remote, "--all-tables"])
            try #require(initialised.status == 0, "\(initialised.standardError)")
        }
        // Each client: rounds of sqlite3 writes, each followed by a sync, all clients at once.
        let handedOut = try await withThrowingTaskGroup(of: [(Int, String, String)].self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    var given: [(Int, String, String)] = []
                    for round in 0..<4 {
                        let name = "list \(round) of \(index)"
                        let id = try await Self.sqlite(client, """
                            BEGIN IMMEDIATE;
                            INSERT INTO lists (name) VALUES ('\(name)');
                            INSERT INTO items (list_id, title) VALUES (last_insert_rowid(), 'first of \(name)');
                            INSERT INTO tags (label, item_id) VALUES ('new', last_insert_rowid());
                            INSERT INTO items (list_id, title) VALUES ((SELECT max(id) FROM lists WHERE name = '\(name)'), 'second of \(name)');
                            SELECT id FROM lists WHERE name = '\(name)';
                            COMMIT;
                            """)
                        given.append((index, id.last ?? "", name))
                        if round == 2 {
                            // The app deletes its first list; its items and their tags cascade.
                            _ = try await Self.sqlite(client, "DELETE FROM lists WHERE name = 'list 0 of \(index)'")
                        }
                        _ = try await Self.sync(client)
                    }
                    return given
                }
            }
            var all: [(Int, String, String)] = []
            for try await given in group { all += given }
            return all
        }
        for _ in 0..<2 {
            for client in clients { _ = try await Self.sync(client) }
        }
        var reference: [String]?
        for client in clients {
            #expect(try await Self.sync(client) == 0, "a quiet system pushes nothing")
            let rows = try await Self.sqlite(client, """
                SELECT 'list ' || name FROM lists
                UNION ALL SELECT 'item ' || items.title || ' under ' || lists.name FROM items JOIN lists ON lists.id = items.list_id
                UNION ALL SELECT 'tag ' || label || ' on ' || items.title FROM tags JOIN items ON items.id = tags.item_id
                ORDER BY 1;
                """)
            #expect(rows.count == 9 + 18 + 9, "\(rows)")
            #expect(rows.filter { $0.hasPrefix("item ") }.allSatisfy { line in
                let parts = line.components(separatedBy: " under ")
                return parts.count == 2 && parts[0].hasSuffix(parts[1])
            }, "every item under its own list")
            if let reference { #expect(rows == reference) } else { reference = rows }
            #expect(try await Self.sqlite(client, "SELECT count(*) FROM pragma_foreign_key_check") == ["0"])
            #expect(try await Self.sqlite(client, "PRAGMA integrity_check") == ["ok"])
            #expect(try await Self.sqlite(client, "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'lists') >= (SELECT max(id) FROM lists)") == ["1"])
        }
        // status --row names a row by the identity every client knows it by.
        func identity(_ client: String, _ name: String) async throws -> String? {
            let id = try await Self.sqlite(client, "SELECT id FROM lists WHERE name = '\(name)'").first ?? "0"
            let status = try await RollsyncProcess.run(["status", "--db", client, "--row", "lists:\(id)", "--json"])
            let rows = try status.jsonObjects().first?["rows"] as? [[String: Any]]
            return rows?.first?["globalIdentity"] as? String
        }
        let identities = try await clients.asyncMap { try await identity($0, "list 1 of 2") }
        #expect(identities[0] != nil && Set(identities.map { $0 ?? "" }).count == 1, "\(identities)")
        // The history finds the row by that identity on any client.
        let log = try await RollsyncProcess.run(["log", "--db", clients[0], "--key", identities[0] ?? ""])
        #expect(log.status == 0 && log.standardOutput.contains("lists: 1 inserted, 0 updated, 0 deleted"), "\(log.standardOutput) \(log.standardError)")
        // Every id sqlite3 handed out still names the same list on its client (or none, deleted).
        for (index, id, name) in handedOut {
            let found = try await Self.sqlite(clients[index], "SELECT name FROM lists WHERE id = \(id)")
            #expect(found == (name.hasPrefix("list 0 ") ? [] : [name]), "client \(index): id \(id) was \(name), now \(found)")
        }
    }
}

extension Array {
    /// `transform` applied to each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
