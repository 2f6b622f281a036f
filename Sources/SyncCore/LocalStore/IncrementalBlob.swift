import Foundation
import GRDB
import GRDBSQLite

/// Large BLOB values of rowid tables read and written through SQLite's incremental blob I/O, so a
/// value is in memory once: selecting a value holds SQLite's copy and GRDB's at the same time, and
/// binding one makes SQLite build the whole row record around a copy of it.
///
/// Tables `WITHOUT ROWID` have no incremental I/O; their values, and TEXT values, go through
/// ordinary statements.
enum IncrementalBlob {
    /// Values from this size on (1 MiB) go through incremental I/O.
    static let threshold = 1 << 20

    private static let chunkSize = 1 << 20

    /// The name that selects the rowid of `table`: `rowid`, or `_rowid_` or `oid` when a column
    /// (generated and hidden ones included, which `SELECT` would read instead) takes the name;
    /// `nil` for a `WITHOUT ROWID` table or one whose columns take all three.
    static func rowidName(of table: String, in db: Database) throws -> String? {
        guard try Int.fetchOne(db, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", arguments: [table]) == 0 else {
            return nil
        }
        let taken = Set(try String.fetchAll(db, sql: "SELECT lower(name) FROM pragma_table_xinfo(?, 'main')", arguments: [table]))
        return ["rowid", "_rowid_", "oid"].first { !taken.contains($0) }
    }

    /// The BLOB of `column` in the row `rowid` of `table`, which is `length` bytes long.
    static func read(_ table: String, _ column: String, rowid: Int64, length: Int, in db: Database) throws -> Data {
        let handle = try open(table, column, rowid: rowid, writable: false, in: db)
        defer { sqlite3_blob_close(handle) }
        guard Int(sqlite3_blob_bytes(handle)) == length else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the value of \(table).\(column) changed while it was read")
        }
        var data = Data(count: length)
        try data.withUnsafeMutableBytes { bytes in
            var offset = 0
            while offset < length {
                let count = min(chunkSize, length - offset)
                let status = sqlite3_blob_read(handle, bytes.baseAddress! + offset, Int32(count), Int32(offset))
                guard status == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: status), message: "reading \(table).\(column)") }
                offset += count
            }
        }
        return data
    }

    /// Writes `data` over the BLOB of `column` in the row `rowid` of `table`, which must already
    /// hold a BLOB of the same length (written as `zeroblob(length)`).
    static func write(_ data: Data, to table: String, _ column: String, rowid: Int64, in db: Database) throws {
        let handle = try open(table, column, rowid: rowid, writable: true, in: db)
        defer { sqlite3_blob_close(handle) }
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = min(chunkSize, bytes.count - offset)
                let status = sqlite3_blob_write(handle, bytes.baseAddress! + offset, Int32(count), Int32(offset))
                guard status == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: status), message: "writing \(table).\(column)") }
                offset += count
            }
        }
    }

    private static func open(_ table: String, _ column: String, rowid: Int64, writable: Bool, in db: Database) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let status = sqlite3_blob_open(db.sqliteConnection, "main", table, column, rowid, writable ? 1 : 0, &handle)
        guard status == SQLITE_OK, let handle else {
            if let handle { sqlite3_blob_close(handle) }
            throw DatabaseError(resultCode: ResultCode(rawValue: status), message: "cannot open \(table).\(column) for incremental I/O")
        }
        return handle
    }
}
