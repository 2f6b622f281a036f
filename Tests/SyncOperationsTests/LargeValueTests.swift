import Foundation
import GRDB
import SyncCore
import Testing

/// Values of 1 MiB and more take other paths: read through incremental blob I/O when pushed (rowid
/// tables), written from their own storage into the set, read back as slices of their record, and
/// written through `zeroblob` and incremental I/O when applied (rowid tables). Every shape of table
/// must still get the exact bytes.
@Suite("Large values")
struct LargeValueTests {
    static let schema = """
        CREATE TABLE photo (id TEXT PRIMARY KEY NOT NULL, caption TEXT, data BLOB, thumbnail BLOB);
        CREATE TABLE archive (id TEXT PRIMARY KEY NOT NULL, data BLOB) WITHOUT ROWID;
        CREATE TABLE odd (id TEXT PRIMARY KEY NOT NULL, rowid TEXT, _rowid_ BLOB, data BLOB);
        """

    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) })
    }

    @Test("large BLOB and TEXT values in rowid, WITHOUT ROWID and oddly named tables arrive byte for byte, inserted and updated")
    func largeValuesRoundTrip() async throws {
        let remote = try TestRemote(.memory)
        let tables = ["photo", "archive", "odd"]
        let anna = try TestClient("anna", remote: remote.store, schema: Self.schema, tables: tables)
        let ben = try TestClient("ben", remote: remote.store, schema: Self.schema, tables: tables)
        try await anna.sync()
        try await ben.sync()
        let big = Self.bytes(3 << 20, seed: 1)
        let text = String(repeating: "große Datei 📷 ", count: 120_000)
        try anna.execute("INSERT INTO photo VALUES ('p1', ?, ?, ?)", [text, big, Self.bytes(2_000, seed: 2)])
        try anna.execute("INSERT INTO archive VALUES ('a1', ?)", [Self.bytes(1 << 20, seed: 3)])
        try anna.execute("INSERT INTO odd VALUES ('o1', 'not the rowid', ?, ?)", [Self.bytes(1 << 20, seed: 4), Self.bytes((1 << 20) + 1, seed: 5)])
        try await anna.sync()
        #expect(try await ben.sync().appliedChanges == 3)
        #expect(try ben.dump(tables: tables) == anna.dump(tables: tables))
        #expect(try ben.value("SELECT data FROM photo WHERE id = 'p1'") == big.databaseValue)
        #expect(try ben.value("SELECT typeof(data) FROM photo") == "blob".databaseValue)

        // Updates: a larger value, a smaller one, a large value replaced by NULL.
        try ben.execute("UPDATE photo SET data = ?, thumbnail = ? WHERE id = 'p1'", [Self.bytes(5 << 20, seed: 6), Self.bytes(1 << 20, seed: 7)])
        try ben.execute("UPDATE archive SET data = NULL")
        try ben.execute("UPDATE odd SET data = ?", [Self.bytes(1 << 21, seed: 8)])
        try await ben.sync()
        try await anna.sync()
        #expect(try anna.dump(tables: tables) == ben.dump(tables: tables))
        #expect(try anna.value("SELECT length(data) FROM photo") == (5 << 20).databaseValue)
        #expect(try anna.value("SELECT data FROM archive") == .null)
        for client in [anna, ben] {
            #expect(try client.value("PRAGMA integrity_check") == "ok".databaseValue)
        }
    }
}
