import Foundation
import GRDB

extension LocalStore {
    /// Whether local changes wait to be pushed.
    public func hasPendingChanges() throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_changes)") ?? false
        }
    }

    /// Reads the pending local changes, one net change per row, rows ordered by the clock of their
    /// latest change, from one consistent snapshot, streaming: one row is in memory at a time.
    ///
    /// The log is stamped with clocks first (a short write transaction); the reading itself is a read
    /// transaction, so the application keeps writing meanwhile (its new changes are not included).
    /// - Parameter body: called for each change; throwing stops the reading.
    /// - Returns: the number of changes read.
    @discardableResult
    package func readPendingChanges(_ body: (RowChange) throws -> Void) throws -> Int {
        guard let lastSequence = try writer.write({ db in try ChangeLog.stamp(in: db) }) else { return 0 }
        return try writer.read { db in try Self.readPendingChanges(in: db, upTo: lastSequence, body) }
    }

    /// ``readPendingChanges(_:)`` in the current transaction, of the log entries up to
    /// `lastSequence` (all stamped). One grouping of the log gives each row's pending changes on one
    /// line: the insert's and deletion's clocks and, as ``PendingRow/columnClocks(concatenated:)``
    /// reads them, the column edits'.
    static func readPendingChanges(in db: Database, upTo lastSequence: Int64, _ body: (RowChange) throws -> Void) throws -> Int {
        let folder = try PendingChangeFolder(tables: try syncedTables(in: db), db: db)
        let cursor = try Row.fetchCursor(
            db,
            sql: """
                SELECT table_id, row_key,
                       max(CASE WHEN op = \(LocalStoreSchema.insertOperation) THEN clock END),
                       max(CASE WHEN op = \(LocalStoreSchema.deleteOperation) THEN clock END),
                       group_concat(CASE WHEN op = \(LocalStoreSchema.updateOperation) AND column_name IS NOT NULL
                           THEN clock || ',' || length(column_name) || ',' || column_name END, ''),
                       max(clock) AS row_clock, max(row_id)
                FROM rollingsync_changes WHERE seq <= ?
                GROUP BY table_id, row_key
                ORDER BY row_clock, table_id, row_key
                """,
            arguments: [lastSequence]
        )
        var count = 0
        while let row = try cursor.next() {
            func clock(_ index: Int) -> HLCTimestamp? {
                (row[index] as Int64?).map { HLCTimestamp(rawValue: UInt64(bitPattern: $0)) }
            }
            var pending = PendingRow(insertClock: clock(2), deleteClock: clock(3))
            if let edits = row[4] as String? {
                pending.columnClocks = try PendingRow.columnClocks(concatenated: edits)
            }
            if let change = try folder.fold(tableID: row[0], key: row[1], rowid: row[6], pending: pending) {
                try body(change)
                count += 1
            }
        }
        return count
    }

    /// Encodes the pending local changes into a change set file, streaming.
    ///
    /// Nothing is marked as pushed: call ``markPushed(_:)`` after the upload succeeded. Changes made
    /// while or after the set is written stay pending for the next set.
    /// - Parameters:
    ///   - url: the file to create (replaced if it exists).
    ///   - setID: the set's unique identifier (e.g. a time-prefixed UUID; also the remote file name).
    /// - Returns: the written set, or `nil` (and no file) when nothing is pending.
    /// - Throws: ``ChangeSetFormatError`` or a file or database error; no partial file is left.
    package func writePendingChangeSet(to url: URL, setID: String) throws -> PendingChangeSet? {
        guard let lastSequence = try writer.write({ db in try ChangeLog.stamp(in: db) }) else { return nil }
        do {
            return try writer.read { db in
                let encoder = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: setID, databaseID: databaseID))
                _ = try Self.readPendingChanges(in: db, upTo: lastSequence) { try encoder.write($0) }
                return PendingChangeSet(summary: try encoder.finish(), lastSequence: lastSequence)
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }

    /// Records that a set written by ``writePendingChangeSet(to:setID:)`` was uploaded: removes the
    /// changes it contained from the log, remembers their clocks (per updated cell, per created
    /// row, and deleted keys, except keys created again after their deletion, whose tombstones go) for
    /// last-writer-wins against late remote changes, and records the set id as applied
    /// (so a whole-store copy of this database is known to contain it). Changes made after the set
    /// was written stay pending. Calling it twice for the same set is harmless.
    package func markPushed(_ pushed: PendingChangeSet) throws {
        try writer.write { db in
            let columnCounts = Dictionary(uniqueKeysWithValues: try Self.syncedTables(in: db).map { ($0.id, $0.columns.count) })
            try ChangeLog.retire(
                upTo: pushed.lastSequence, setID: pushed.summary.header.setID, databaseID: databaseID,
                changeCount: pushed.summary.changeCount, maximumClock: pushed.summary.maximumClock, columnCounts: columnCounts, in: db
            )
        }
    }
}
