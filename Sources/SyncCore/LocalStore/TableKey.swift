import Foundation
import GRDB

/// How the rows of a synced table are named wherever RollingSync refers to a row: the change
/// log, change sets, cell clocks, tombstones, removed rows, the trigger guard. That name, the *row
/// key*, is always one SQLite value:
/// - a table with one key column: the column's value itself;
/// - a table with a composite key: TEXT, the key's values as SQL literals in the order of the
///   `PRIMARY KEY` clause, separated by commas, exactly as SQLite's `quote()` writes them:
///   `'note-1','tag-2'`, `X'0A1B',42`, `'it''s',2.5`. A REAL equal to an integer is written as
///   that integer (`2`, not `2.0`): SQLite's key comparison holds 2 and 2.0 equal, so they must
///   name one row. Only columns that can hold a REAL pay for that test in SQL: a column of TEXT
///   affinity never does (SQLite stores numbers as text), and its part is `quote()` alone (on a
///   key of two TEXT columns, 100k rows through Python's sqlite3, inserts and 1-column updates
///   with capture took 9 % less time). INTEGER affinity would not do: SQLite keeps the REAL −2⁶³
///   a REAL there.
///
/// The composite form is computed in SQL, by `quote()`, wherever a row is captured or looked up by
/// its key value, and never in Swift, so one rule makes it; Swift only reads it back into the
/// column values (``components(of:)``) to bind them, so a row is always found through its primary
/// key's index. `quote()` is exact for every storage class (a REAL is written with as many digits
/// as it takes to read back the same number), so equal keys give equal names and distinct keys
/// distinct names.
///
/// Edge cases: a key column with a collation other than BINARY (`COLLATE NOCASE`) makes the table
/// accept one key per collation-equal set; the row key is then the spelling stored. A REAL that
/// needs more than 15 significant digits is written by SQLite's own fallback format, whose last
/// digits differed between CPU architectures before SQLite 3.43, and an infinite one is `Inf` before
/// SQLite 3.44, `9.0e+999` after. TEXT is cut at a NUL character.
///
/// **Local keys.** A key column whose values each database assigns on its own (an integer key, a
/// rowid, or a foreign key to such a key: ``SyncedTable/keyIsLocal``,
/// ``SyncedTable/localReferences``) has an *identity table*: the synced table whose
/// ``RowIdentity`` translates it. In the row key such a column stands for the global identity of
/// the row it names (TEXT), never for its local value; lookups translate back through the
/// identity map, so they still go through the key's index.
struct TableKey: Sendable, Equatable {
    /// The key's columns, in the order of the `PRIMARY KEY` clause (at least one).
    let columns: [String]
    /// For each column, the id of the synced table whose global identities its local values
    /// stand for, or `nil` for a column named by its own value.
    let identities: [Int64?]
    /// Whether the key is the table's own local key (its identities are given with the row, so a
    /// row key is always its identity); otherwise a column with an identity table is a reference,
    /// named by its own value while the row it references has no identity (a dangling reference).
    let isOwnLocalKey: Bool
    /// For each column, whether it may hold a REAL equal to an integer, which the composite form
    /// spells as that integer: `false` only where the column's affinity rules it out
    /// (``SyncedTable/keyColumnsWithoutIntegralReals``).
    let holdIntegralReals: [Bool]

    init(columns: [String], identities: [Int64?]? = nil, isOwnLocalKey: Bool = false, holdIntegralReals: [Bool]? = nil) {
        self.columns = columns
        self.identities = identities ?? columns.map { _ in nil }
        self.isOwnLocalKey = isOwnLocalKey
        self.holdIntegralReals = holdIntegralReals ?? columns.map { _ in true }
    }

    /// Whether the key has more than one column.
    var isComposite: Bool { columns.count > 1 }

    /// Whether a column of the key is named by a global identity.
    var hasIdentities: Bool { identities.contains { $0 != nil } }

    /// The key's columns as an SQL list: `"a", "b"`.
    var columnList: String { columns.map(\.sqlIdentifier).joined(separator: ", ") }

    /// The SQL expression of the row key of `row` (`new`, `old`, a table alias; unqualified when
    /// `nil`).
    func value(of row: String? = nil) -> String {
        let names = zip(qualified(row), identities).map { name, identity in
            identity.map { isOwnLocalKey ? RowIdentity.global(ofLocal: name, tableID: $0) : "coalesce(\(RowIdentity.global(ofLocal: name, tableID: $0)), \(name))" } ?? name
        }
        guard isComposite else { return names[0] }
        return zip(names, zip(identities, holdIntegralReals)).map { name, column in
            let (identity, holdsIntegralReals) = column
            return identity != nil || !holdsIntegralReals
                ? "quote(\(name))"
                : "quote(iif(typeof(\(name)) = 'real' AND \(name) = CAST(\(name) AS INTEGER), CAST(\(name) AS INTEGER), \(name)))"
        }.joined(separator: " || ',' || ")
    }

    /// The SQL condition that `row` has a key: none of its key columns is NULL. Rows that fail it
    /// can exist only where ``SyncedTable/keyMayBeNull``; they are never captured or published.
    func isPresent(in row: String? = nil) -> String {
        qualified(row).map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
    }

    /// The SQL condition that the key of `old` differs from the key of `new` (a row re-keyed).
    func differs(_ old: String, _ new: String) -> String {
        zip(qualified(old), qualified(new)).map { "\($0) IS NOT \($1)" }.joined(separator: " OR ")
    }

    /// The SQL condition that the key columns of `row` are equal to those of `other`.
    func equals(_ row: String, _ other: String) -> String {
        zip(qualified(row), qualified(other)).map { "\($0) = \($1)" }.joined(separator: " AND ")
    }

    /// The SQL condition that selects the row whose key values are bound to its placeholders, one
    /// per column (bind ``components(of:)``): `"a" = ? AND "b" = ?`, so the key's index is used.
    func matches(in row: String? = nil) -> String {
        zip(qualified(row), identities).map { name, identity in
            "\(name) = \(identity.map { RowIdentity.local(ofGlobal: "?", tableID: $0) } ?? "?")"
        }.joined(separator: " AND ")
    }

    /// The key's column values from a row key: the key itself for one column, the literals of the
    /// composite form read back otherwise.
    /// - Throws: ``ChangeSetFormatError`` (`malformed`) if `key` is not the composite form of as
    ///   many values as the key has columns, none NULL, each spelled as ``value(of:)`` spells it
    ///   (a damaged or foreign change set).
    func components(of key: DatabaseValue) throws -> [DatabaseValue] {
        guard isComposite else { return [key] }
        guard case .string(let text) = key.storage, let values = Self.literals(in: text), values.count == columns.count else {
            throw ChangeSetFormatError(.malformed("a row key is not the \(columns.count) values of its table's composite key"))
        }
        return values
    }

    private func qualified(_ row: String?) -> [String] {
        columns.map { column in row.map { "\($0).\(column.sqlIdentifier)" } ?? column.sqlIdentifier }
    }

    /// Reads a comma-separated list of SQL literals as ``value(of:)`` writes them: integers, reals
    /// that are not integers, `'text'` (quotes doubled) and `X'HEX'`; `nil` for anything else
    /// (`NULL`, `x'…'`, `+1`, `007`, `2.0`), which would name a row differently.
    static func literals(in text: String) -> [DatabaseValue]? {
        var values: [DatabaseValue] = []
        var rest = Array(text.utf8)[...]
        while true {
            guard let (value, remainder) = literal(at: rest) else { return nil }
            values.append(value)
            guard let first = remainder.first else { return values }
            guard first == UInt8(ascii: ",") else { return nil }
            rest = remainder.dropFirst()
        }
    }

    private static func literal(at text: ArraySlice<UInt8>) -> (DatabaseValue, ArraySlice<UInt8>)? {
        let quote = UInt8(ascii: "'")
        guard let first = text.first else { return nil }
        switch first {
        case quote:
            var bytes: [UInt8] = []
            var index = text.startIndex + 1
            while index < text.endIndex {
                let byte = text[index]
                index += 1
                guard byte == quote else {
                    bytes.append(byte)
                    continue
                }
                guard index < text.endIndex, text[index] == quote else {
                    return (String(decoding: bytes, as: UTF8.self).databaseValue, text[index...])
                }
                bytes.append(quote)
                index += 1
            }
            return nil
        case UInt8(ascii: "X"):
            let body = text.dropFirst()
            guard body.first == quote, let end = body.dropFirst().firstIndex(of: quote) else { return nil }
            let hex = body[(body.startIndex + 1)..<end]
            guard hex.count.isMultiple(of: 2) else { return nil }
            var bytes = Data(capacity: hex.count / 2)
            var index = hex.startIndex
            while index < hex.endIndex {
                let digits = String(decoding: hex[index...index + 1], as: UTF8.self)
                guard digits == digits.uppercased(), let byte = UInt8(digits, radix: 16) else { return nil }
                bytes.append(byte)
                index += 2
            }
            return (bytes.databaseValue, body[(end + 1)...])
        default:
            let end = text.firstIndex(of: UInt8(ascii: ",")) ?? text.endIndex
            let token = String(decoding: text[..<end], as: UTF8.self)
            let rest = text[end...]
            if let integer = Int64(token) {
                return String(integer) == token ? (integer.databaseValue, rest) : nil
            }
            // SQLite before 3.44 writes an infinite REAL as `Inf`, later versions as `9.0e+999`.
            if token == "Inf" || token == "-Inf" { return ((token == "Inf" ? Double.infinity : -Double.infinity).databaseValue, rest) }
            guard token.contains(where: { $0 == "." || $0 == "e" }), let real = Double(token) else { return nil }
            // An integral REAL within the integers' range is spelled as an integer.
            if let integral = Int64(exactly: real), Double(integral) == real { return nil }
            return (real.databaseValue, rest)
        }
    }
}
