import Foundation
import GRDB
import Testing
@testable import SyncCore

/// The row key of a composite key (``TableKey``): SQLite's `quote()` writes it, Swift reads it back
/// into the same values, for every storage class and the characters that could confuse a reader;
/// a REAL equal to an integer is named as that integer, since SQLite's keys hold them equal.
@Suite("Composite row keys")
struct TableKeyTests {
    static let values: [DatabaseValue] = [
        "plain".databaseValue, "".databaseValue, "it's".databaseValue, "a,b".databaseValue, "''".databaseValue,
        "X'00'".databaseValue, "NULL".databaseValue, "日本語 🙂 e\u{301}".databaseValue, "line\nbreak".databaseValue,
        Data().databaseValue, Data([0, 0xFF, 0x27, 0x2C]).databaseValue,
        0.databaseValue, Int64.min.databaseValue, Int64.max.databaseValue, (-7).databaseValue,
        0.1.databaseValue, 1.0.databaseValue, (-2.5e-5).databaseValue, 1e300.databaseValue, Double.infinity.databaseValue,
        (-Double.infinity).databaseValue, Double.leastNonzeroMagnitude.databaseValue, (1.0 / 3.0).databaseValue,
        // −2⁶³: the one integral REAL SQLite keeps a REAL in a column of INTEGER affinity.
        Double(Int64.min).databaseValue,
    ]

    /// `value` as its row key names it: an integral REAL as the integer.
    static func named(_ value: DatabaseValue) -> DatabaseValue {
        if case .double(let real) = value.storage, let integer = Int64(exactly: real) { return integer.databaseValue }
        return value
    }

    @Test("the row key of every pair of values reads back as those values, storage classes included")
    func rowKeysRoundTrip() throws {
        let key = TableKey(columns: ["a", "b"])
        let queue = try DatabaseQueue()
        try queue.read { db in
            for first in Self.values {
                for second in Self.values {
                    let text = try String.fetchOne(db, sql: "SELECT \(key.value()) FROM (SELECT ? AS a, ? AS b)", arguments: [first, second]) ?? ""
                    let components = try #require(try? key.components(of: text.databaseValue), "\(text) from \(first), \(second)")
                    let expected = [first, second].map(Self.named)
                    #expect(components == expected, "\(text)")
                    #expect(components.map(\.storage.kind) == expected.map(\.storage.kind), "\(text)")
                }
            }
        }
    }

    @Test("2 and 2.0 name one row, as SQLite's key comparison holds them equal")
    func integralRealsNameTheInteger() throws {
        let key = TableKey(columns: ["a", "b"])
        let names = try DatabaseQueue().read { db in
            try String.fetchAll(db, sql: "SELECT \(key.value()) FROM (SELECT 'x' AS a, 2 AS b UNION ALL SELECT 'x', 2.0 UNION ALL SELECT 'x', -0.0)")
        }
        #expect(names == ["'x',2", "'x',2", "'x',0"])
    }

    @Test(
        "columns of TEXT affinity, spelled by quote() alone, give every stored value the row key of the full rule",
        arguments: [
            ("TEXT", ""), ("VARCHAR(36)", ""), ("CLOB", ""), ("INTEGER", ""), ("BIGINT", ""), ("POINT", ""),
            ("REAL", ""), ("NUMERIC", ""), ("DECIMAL(10,2)", ""), ("BOOLEAN", ""), ("DATETIME", ""), ("UUID", ""), ("", ""), ("BLOB", ""), ("REAL ınt", ""),
            ("TEXT", " WITHOUT ROWID"), ("INTEGER", " WITHOUT ROWID"), ("REAL", " WITHOUT ROWID"),
            ("TEXT", " STRICT"), ("INTEGER", " STRICT"), ("INT", " STRICT"), ("REAL", " STRICT"), ("BLOB", " STRICT"), ("ANY", " STRICT"),
        ]
    )
    func affinityShortcut(type: String, options: String) throws {
        let queue = try DatabaseQueue()
        let table = try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a \(type) NOT NULL, b \(type) NOT NULL, c TEXT, PRIMARY KEY (a, b))\(options)")
            // Reversed, so that the REAL −2⁶³ comes before the INTEGER −2⁶³, which the key holds
            // equal to it (the later one is ignored).
            for first in Self.values.reversed() {
                for second in Self.values.reversed() {
                    // A STRICT column refuses what its type cannot hold.
                    try? db.execute(sql: "INSERT OR IGNORE INTO t (a, b) VALUES (?, ?)", arguments: [first, second])
                }
            }
            return try SyncedTable(name: "t", id: 1, in: db)
        }
        let shortcut = ["TEXT", "VARCHAR(36)", "CLOB"].contains(type)
        #expect(table.key.holdIntegralReals == [!shortcut, !shortcut])
        let full = TableKey(columns: ["a", "b"])
        try queue.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? 0 >= 4, "values of every kind its type accepts")
            let different = try String.fetchAll(db, sql: "SELECT \(table.key.value()) FROM t WHERE \(table.key.value()) IS NOT \(full.value())")
            #expect(different.isEmpty, "\(different.prefix(5))")
        }
    }

    @Test("text that is not as many literals as the key has columns is refused", arguments: [
        "'a'", "'a','b','c'", "'a',", ",'a'", "'a' ,'b'", "'unterminated,'b'", "X'0','b'", "X'zz','b'", "1x,2", "'a';'b'", "",
        "NULL,'a'", "x'00','b'", "X'0a','b'", "+1,2", "007,1", "2.0,1", "1E5,1",
    ])
    func malformedKeysAreRefused(text: String) {
        #expect(throws: ChangeSetFormatError.self) { try TableKey(columns: ["a", "b"]).components(of: text.databaseValue) }
    }

    @Test("a composite key must be TEXT; a one-column key is its own value")
    func keyKinds() throws {
        #expect(throws: ChangeSetFormatError.self) { try TableKey(columns: ["a", "b"]).components(of: 42.databaseValue) }
        #expect(try TableKey(columns: ["id"]).components(of: Data([1]).databaseValue) == [Data([1]).databaseValue])
    }
}

private extension DatabaseValue.Storage {
    /// The storage class, to tell 1 from 1.0.
    var kind: String {
        switch self {
        case .null: "null"
        case .int64: "integer"
        case .double: "real"
        case .string: "text"
        case .blob: "blob"
        }
    }
}
