import Foundation
import GRDB

/// The change log (`rollingsync_changes`) and its capture switch: the one owner of every write to
/// the log and of turning capture off and on (`SourceStructureTests` keeps it so).
///
/// **Capture.** The capture triggers (``CaptureTriggers``) append to the log unless capture is
/// suppressed, which RollingSync does only inside its own transactions, while it writes what other
/// clients decided (``withCaptureSuppressed(_:_:)``): an apply, a whole-store installation. Inside
/// them, a write that must be published as a local change (a row removed by a rule) runs with
/// capture on again (``withCaptureEnabled(_:_:)``). The switch is a column of
/// `rollingsync_state` (`applying`), so the triggers read it in the file, whatever connection or
/// tool writes; its name stays, since whole stores carry it to clients of the last release.
///
/// **Entries.** Besides the triggers, entries are added when a table is registered (every row,
/// as an insert), when a column is added (every row with a value, as an update), when an outcome
/// goes against the later write (``republish(_:key:tableID:in:)``), when the engine removes a
/// row as a local deletion (``recordDeletion(key:tableID:in:)``), and when a database registers
/// again after its change sets were deleted (``recordPublishedWrites(of:databaseID:in:)``: its
/// published writes, already stamped with their original clocks). A trigger's update entry names
/// every column the update changed (``columnSet(group:changed:)``); ``stamp(in:)`` spells it out as
/// one entry per column, the one shape everything after it reads. Entries leave when pushed
/// (``retire(upTo:setID:databaseID:changeCount:maximumClock:in:)``), superseded or discarded.
///
/// **Clocks.** A capture trigger records only what it must observe at write time: the wall clock (in SQL, as a
/// Julian day number, converted to `ms << 16` only here, see
/// ``LocalStoreSchema/hybridClockCandidate(ofWall:)``) and the change's position (`seq`, SQLite's
/// own rowid assignment, strictly increasing because new rows always get `max(rowid) + 1`). The HLC value is a deterministic function of
/// those and of the newest clock issued or seen before (`rollingsync_state.clock`):
///
///     clock(first) = max(wall(first), previous + 1)
///     clock(next)  = max(wall(next), clock(prev) + (seq(next) − seq(prev)))
///
/// which is the usual HLC rule `max(wall, last + 1)` (gaps in `seq` only add to the counter).
/// ``stamp(in:)`` computes it in one SQL statement (a running maximum over a window) before any
/// clock is read, compared or exported, and always before the state clock is advanced past remote
/// changes, so a stamped clock is exactly what a trigger computing the HLC itself would have
/// produced. Keeping the triggers to one plain append is what keeps capture cheap (see the
/// SyncCoreBenchmark).
enum ChangeLog {
    /// Stamps every unstamped log row, advances `rollingsync_state.clock` to the newest stamp, and
    /// spells each update entry of the capture triggers out as one entry per changed column (see
    /// ``columnSet(group:changed:)``), each with the clock, wall reading and rowid of the update:
    /// after it, every entry names one column or none, the shape every reader of the log takes.
    /// The spelled-out entries come after all others, which changes nothing: only clocks order
    /// changes, and `seq` matters only to the stamping of newer entries (and to what a push
    /// carries: everything up to the `seq` returned). Whoever changes a synced table's recorded
    /// columns stamps first (an entry's `column_set` names positions in that list).
    /// - Returns: the `seq` of the newest log row (all rows up to it are stamped), or `nil` if the
    ///   log is empty.
    @discardableResult
    static func stamp(in db: Database) throws -> Int64? {
        guard let first = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM rollingsync_changes WHERE clock IS NULL") else {
            return try Int64.fetchOne(db, sql: "SELECT max(seq) FROM rollingsync_changes")
        }
        try db.execute(
            sql: """
                UPDATE rollingsync_changes SET clock = stamped.hlc FROM (
                    SELECT seq, seq + max(
                        (SELECT clock FROM rollingsync_state) + 1 - ?,
                        max(\(LocalStoreSchema.hybridClockCandidate(ofWall: "wall")) - seq) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING)) AS hlc
                    FROM rollingsync_changes WHERE seq >= ? AND clock IS NULL
                ) AS stamped
                WHERE rollingsync_changes.seq = stamped.seq;
                UPDATE rollingsync_state SET clock = max(clock, coalesce(
                    (SELECT max(clock) FROM rollingsync_changes WHERE seq >= ?), 0));
                WITH positions AS MATERIALIZED (
                    SELECT t.id AS table_id, j.key / \(columnsPerGroup) AS grp, j.key % \(columnsPerGroup) AS bit, j.value AS name
                    FROM rollingsync_tables AS t, json_each(t.columns) AS j)
                INSERT INTO rollingsync_changes (wall, clock, table_id, row_key, op, column_name, row_id)
                SELECT c.wall, c.clock, c.table_id, c.row_key, c.op, p.name, c.row_id
                FROM rollingsync_changes AS c
                JOIN positions AS p ON p.table_id = c.table_id AND p.grp = c.column_set >> \(columnsPerGroup) AND (c.column_set >> p.bit) & 1
                WHERE c.seq >= ? AND c.column_set IS NOT NULL;
                DELETE FROM rollingsync_changes WHERE seq >= ? AND column_set IS NOT NULL;
                """,
            arguments: [first, first, first, first, first]
        )
        return try Int64.fetchOne(db, sql: "SELECT max(seq) FROM rollingsync_changes")
    }

    /// Stamps every unstamped log row just after the newest clock known here, whatever the wall
    /// clock says (the epoch as their wall time): for the effects of the data rules during a
    /// replay of the history (a restore), which belong at that point of the history. Stamped with
    /// the time of the restore, they would be newer than every later write they meet.
    static func stampAtKnownClock(in db: Database) throws {
        try db.execute(sql: "UPDATE rollingsync_changes SET wall = 2440587.5 WHERE clock IS NULL")
        try stamp(in: db)
    }

    /// Advances the state clock past a clock seen elsewhere (the HLC receive rule). Stamp the log
    /// first, so that earlier local changes keep their earlier clocks.
    static func observe(_ clock: HLCTimestamp, in db: Database) throws {
        try db.execute(
            sql: "UPDATE rollingsync_state SET clock = max(clock, ?)",
            arguments: [clock.databaseInteger]
        )
    }

    // MARK: Capture

    /// The `WHEN` condition of a capture trigger: capture is on.
    static let captureIsOn = "(SELECT applying FROM rollingsync_state) = 0"

    /// The `WHEN` condition of a TEMP trigger that acts only while capture is suppressed.
    static let captureIsSuppressed = "(SELECT applying FROM main.rollingsync_state) = 1"

    /// Runs `body` with capture suppressed (the writes it makes are not logged), then restores the
    /// switch as it was, also when `body` throws. Nests.
    static func withCaptureSuppressed<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try withCapture(suppressed: true, db, body)
    }

    /// Runs `body` with capture on (its writes are logged as local changes, as the app's are),
    /// then restores the switch as it was, also when `body` throws. Nests.
    static func withCaptureEnabled<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try withCapture(suppressed: false, db, body)
    }

    private static func withCapture<T>(suppressed: Bool, _ db: Database, _ body: () throws -> T) throws -> T {
        let previous = try Bool.fetchOne(db, sql: "SELECT applying FROM rollingsync_state") ?? false
        guard previous != suppressed else { return try body() }
        try db.execute(sql: "UPDATE rollingsync_state SET applying = ?", arguments: [suppressed])
        defer { try? db.execute(sql: "UPDATE rollingsync_state SET applying = ?", arguments: [previous]) }
        return try body()
    }

    // MARK: Entries

    /// How many columns the `column_set` of one update entry can name: the capture triggers' group
    /// size (``CaptureTriggers/columnsPerTrigger``). Part of the log's format: entries written
    /// with one size must be spelled out (``stamp(in:)``) before a build with another runs.
    static let columnsPerGroup = 16

    /// The SQL expression of an update entry's `column_set`: the number of the group of columns
    /// (their positions in the table's recorded columns divided by ``columnsPerGroup``) shifted
    /// left by ``columnsPerGroup``, with bit *i* set when the SQL condition `changed[i]` (about
    /// the group's *i*-th column) holds. (SQLite gives `<<` and `|` the same precedence: every
    /// term is parenthesized.)
    static func columnSet(group: Int, changed: [String]) -> String {
        precondition(changed.count <= columnsPerGroup, "a group holds at most \(columnsPerGroup) columns")
        let bits = changed.enumerated().map { $0.offset == 0 ? "(\($0.element))" : "((\($0.element)) << \($0.offset))" }
        return (bits + (group == 0 ? [] : ["(\(group) << \(columnsPerGroup))"])).joined(separator: " | ")
    }

    /// The statement a capture trigger runs: one entry of `operation` for the row whose key is the
    /// SQL expression `key` (`new.id`), with the SQL expression `columns` (``columnSet(group:changed:)``)
    /// for an update, and recording the SQL expression `rowid` (`new.rowid`) where given
    /// (``SyncedTable/rowidName``); with `onlyWhen` (the key is present, where it may be NULL),
    /// none when that condition is false.
    static func triggerEntry(operation: Int, tableID: Int64, key: String, columns: String?, rowid: String?, onlyWhen condition: String?) -> String {
        let values = "\(LocalStoreSchema.wallClockReading), \(tableID), \(key), \(operation), \(columns ?? "NULL")\(rowid.map { ", \($0)" } ?? "")"
        return """
            INSERT INTO rollingsync_changes (wall, table_id, row_key, op, column_set\(rowid == nil ? "" : ", row_id"))
                \(condition.map { "SELECT \(values) WHERE \($0)" } ?? "VALUES (\(values))");
            """
    }

    /// Logs every row of a newly registered table as an insert (not rows whose key is NULL).
    /// - Returns: the number of rows logged.
    static func recordEveryRow(of table: SyncedTable, in db: Database) throws -> Int {
        try db.execute(
            sql: """
                INSERT INTO rollingsync_changes (wall, table_id, row_key, op, column_name, row_id)
                SELECT \(LocalStoreSchema.wallClockReading), ?, \(table.key.value()), ?, NULL, \(table.rowidName ?? "NULL")
                FROM main.\(table.name.sqlIdentifier) WHERE \(table.key.isPresent())
                """,
            arguments: [table.id, LocalStoreSchema.insertOperation]
        )
        return db.changesCount
    }

    /// Counts the rows of `table` that have a key and no logged insert: rows that predate the
    /// registration of the table, which no push carries (the log is read once, into a temporary
    /// index, so this is one pass over the table).
    static func countRowsWithoutLoggedInsert(of table: SyncedTable, in db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT count(*) FROM main.\(table.name.sqlIdentifier) WHERE \(table.key.isPresent()) AND \(table.key.value()) NOT IN
                    (SELECT row_key FROM rollingsync_changes WHERE table_id = ? AND op = ?)
                """,
            arguments: [table.id, LocalStoreSchema.insertOperation]
        ) ?? 0
    }

    /// Logs an update of `column` for every row whose value is not `defaultValue` (SQL text of
    /// the column's default, `nil` for none), except rows whose key is NULL.
    /// - Returns: the number of rows logged.
    static func recordColumn(_ column: String, of table: SyncedTable, differingFrom defaultValue: String?, in db: Database) throws -> Int {
        try db.execute(
            sql: """
                INSERT INTO rollingsync_changes (wall, table_id, row_key, op, column_name, row_id)
                SELECT \(LocalStoreSchema.wallClockReading), ?, \(table.key.value()), ?, ?, \(table.rowidName ?? "NULL")
                FROM main.\(table.name.sqlIdentifier)
                WHERE \(column.sqlIdentifier) IS NOT (\(defaultValue ?? "NULL")) AND \(table.key.isPresent())
                """,
            arguments: [table.id, LocalStoreSchema.updateOperation, column]
        )
        return db.changesCount
    }

    /// Logs again, each with its original clock, the writes this database published that still
    /// stand here: every creation and cell edit of an existing row whose current clock was written
    /// by `databaseID` (applied clocks folded first, for its own sets applied back after an
    /// install), every deletion (a tombstone does not record its writer; another client's deletion
    /// logged again with its own clock does where it arrives what that deletion does anyway), and every row no
    /// creation clock covers, as an insert at clock 0, older than any write: rows that predate
    /// the document, which only whole stores carried, and this database's were deleted with it.
    ///
    /// For a database that registers again after another client removed it from the document,
    /// which deleted its change sets and whole stores: the clients that applied those
    /// sets hold their rows and the others never will, and the re-base would drop them here. With
    /// the original clocks, every later write of another client, a deletion included, still wins
    /// over them wherever it arrives. Writes some whole store holds are logged too: a client that
    /// applied the sets of the document and never installs that store needs them.
    /// - Returns: the number of entries logged.
    static func recordPublishedWrites(of tables: [SyncedTable], databaseID: String, in db: Database) throws -> Int {
        try LocalStoreSchema.compactAppliedClocks(in: db)
        let writer = try Int64.fetchOne(db, sql: "SELECT number FROM rollingsync_writers WHERE database_id = ?", arguments: [databaseID])
        let before = db.totalChangesCount
        for table in tables {
            if let writer {
                let columns = String(decoding: try JSONEncoder().encode(table.columns), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO rollingsync_changes (wall, clock, table_id, row_key, op, column_name, republished)
                        SELECT \(LocalStoreSchema.wallClockReading), c.clock, c.table_id, c.row_key,
                               iif(c.column_name = ?, ?, ?), nullif(c.column_name, ?), 1
                        FROM rollingsync_cell_clocks AS c
                        WHERE c.table_id = ? AND c.writer = ?
                          AND (c.column_name = ? OR c.column_name IN (SELECT value FROM json_each(?)))
                          AND c.row_key IN (SELECT \(table.key.value()) FROM main.\(table.name.sqlIdentifier) WHERE \(table.key.isPresent()))
                        """,
                    arguments: [
                        LocalStoreSchema.rowClockColumn, LocalStoreSchema.insertOperation, LocalStoreSchema.updateOperation,
                        LocalStoreSchema.rowClockColumn, table.id, writer, LocalStoreSchema.rowClockColumn, columns,
                    ]
                )
            }
            try db.execute(
                sql: """
                    INSERT INTO rollingsync_changes (wall, clock, table_id, row_key, op, column_name, republished)
                    SELECT \(LocalStoreSchema.wallClockReading), clock, table_id, row_key, ?, NULL, 1
                    FROM rollingsync_tombstones WHERE table_id = ?;
                    INSERT INTO rollingsync_changes (wall, clock, table_id, row_key, op, column_name, republished)
                    SELECT \(LocalStoreSchema.wallClockReading), 0, ?, r.row_key, ?, NULL, 1
                    FROM (SELECT \(table.key.value()) AS row_key FROM main.\(table.name.sqlIdentifier) WHERE \(table.key.isPresent())) AS r
                    WHERE NOT EXISTS (SELECT 1 FROM rollingsync_cell_clocks AS c
                        WHERE c.table_id = ? AND c.row_key = r.row_key AND c.column_name = ?);
                    """,
                arguments: [
                    LocalStoreSchema.deleteOperation, table.id,
                    table.id, LocalStoreSchema.insertOperation, table.id, LocalStoreSchema.rowClockColumn,
                ]
            )
        }
        return db.totalChangesCount - before
    }

    /// Forgets the writes ``recordPublishedWrites(of:databaseID:in:)`` logged again that were not
    /// pushed yet (local changes stay pending): the document was deleted and recreated since, and
    /// starts from its creator's data, or they are about to be logged afresh.
    static func dropRepublishedWrites(in db: Database) throws {
        try db.execute(sql: "DELETE FROM rollingsync_changes WHERE republished")
    }

    /// Forgets the rowids the log recorded (see ``SyncedTable/rowidName``): once a whole store
    /// replaced the rows, they name other rows or none, and a push would look each up twice.
    static func forgetRowids(in db: Database) throws {
        try db.execute(sql: "UPDATE rollingsync_changes SET row_id = NULL WHERE row_id IS NOT NULL")
    }

    /// Logs a cell again with a new clock, so that a decision against the later write reaches
    /// every client.
    static func republish(_ column: String, key: DatabaseValue, tableID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO rollingsync_changes (wall, table_id, row_key, op, column_name)
            VALUES (\(LocalStoreSchema.wallClockReading), ?, ?, ?, ?)
            """).execute(arguments: [tableID, key, LocalStoreSchema.updateOperation, column])
    }

    /// Logs the deletion of a row the engine did not write (it lost a uniqueness collision), so
    /// that it is pushed like a local deletion.
    static func recordDeletion(key: DatabaseValue, tableID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO rollingsync_changes (wall, table_id, row_key, op, column_name)
            VALUES (\(LocalStoreSchema.wallClockReading), ?, ?, ?, NULL)
            """).execute(arguments: [tableID, key, LocalStoreSchema.deleteOperation])
    }

    /// Forgets a superseded local edit of one cell (a later remote write won it).
    static func dropEdit(of column: String, key: DatabaseValue, tableID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM rollingsync_changes WHERE table_id = ? AND row_key = ? AND op = ? AND column_name = ?")
            .execute(arguments: [tableID, key, LocalStoreSchema.updateOperation, column])
    }

    /// Forgets the unpushed creation of one row (its insert, and a deletion before it), keeping
    /// its column edits: a newer creation of the key from another client superseded it.
    static func dropCreation(key: DatabaseValue, tableID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM rollingsync_changes WHERE table_id = ? AND row_key = ? AND op IN (?, ?)")
            .execute(arguments: [tableID, key, LocalStoreSchema.insertOperation, LocalStoreSchema.deleteOperation])
    }

    /// Forgets every unpushed change of one row (a deletion or a constraint overruled them).
    static func dropChanges(key: DatabaseValue, tableID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM rollingsync_changes WHERE table_id = ? AND row_key = ?").execute(arguments: [tableID, key])
    }

    /// Forgets the unpushed changes logged at or before `clock` (stamped entries only) of the rows
    /// `table` lists (columns `table_id`, `row_key`), in one pass over the log.
    static func dropChanges(upTo clock: HLCTimestamp, ofRowsListedIn table: String, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM rollingsync_changes WHERE clock <= ? AND (table_id, row_key) IN (SELECT table_id, row_key FROM \(table))",
            arguments: [clock.databaseInteger]
        )
    }

    /// Forgets the unpushed edits of a column dropped from its table.
    static func dropEdits(ofColumn column: String, tableID: Int64, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM rollingsync_changes WHERE table_id = ? AND op = ? AND column_name = ?",
            arguments: [tableID, LocalStoreSchema.updateOperation, column]
        )
    }

    /// Forgets every unpushed change of a table removed from synchronization.
    static func dropChanges(ofTable tableID: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM rollingsync_changes WHERE table_id = ?", arguments: [tableID])
    }

    /// Empties the log and turns capture on: a whole store adopted as a new client's database
    /// starts with nothing to push (its uploader pushes its own changes).
    static func reset(in db: Database) throws {
        try db.execute(sql: "UPDATE rollingsync_state SET applying = 0; DELETE FROM rollingsync_changes;")
    }

    /// Retires the entries up to `lastSequence`, which a pushed set carried: each cell's and row's
    /// newest pushed clock becomes its current write (cell clocks, tombstones, re-creations), the
    /// entries leave the log and the set is recorded as applied here. Changes logged after the set
    /// was written stay pending. Harmless when repeated.
    ///
    /// A key deleted in the set forgets its earlier cell clocks, and keeps only those of edits made
    /// after its last deletion (a re-created row edited before the push). A created row records as
    /// its clock (column `''`) exactly what every receiver records, ``RowMerge/creationClock(of:)``
    /// of the pushed insert: the insert's clock, unless every column (`columnCounts`, by table id)
    /// was edited after it, then the oldest of those edits.
    static func retire(
        upTo lastSequence: Int64, setID: String, databaseID: String, changeCount: Int, maximumClock: HLCTimestamp,
        columnCounts: [Int64: Int], in db: Database
    ) throws {
        let (update, insert, delete) = (LocalStoreSchema.updateOperation, LocalStoreSchema.insertOperation, LocalStoreSchema.deleteOperation)
        let newer = LocalStoreSchema.keepingNewerCellClock
        let writer = try LocalStoreSchema.writerNumber(of: databaseID, in: db)
        try db.execute(
            sql: """
                DELETE FROM rollingsync_cell_clocks WHERE (table_id, row_key) IN (
                    SELECT table_id, row_key FROM rollingsync_changes WHERE seq <= ? AND op = ?);
                WITH deletions AS (
                    SELECT table_id, row_key, max(clock) AS clock FROM rollingsync_changes WHERE seq <= ? AND op = ? GROUP BY table_id, row_key)
                INSERT INTO rollingsync_cell_clocks (table_id, row_key, column_name, clock, writer)
                SELECT u.table_id, u.row_key, u.column_name, max(u.clock), ? FROM rollingsync_changes AS u
                LEFT JOIN deletions AS d ON d.table_id = u.table_id AND d.row_key = u.row_key
                WHERE u.seq <= ? AND u.op = ? AND u.clock > coalesce(d.clock, -1)
                GROUP BY u.table_id, u.row_key, u.column_name
                \(newer);
                INSERT INTO rollingsync_tombstones (table_id, row_key, clock)
                SELECT table_id, row_key, max(clock) FROM rollingsync_changes
                WHERE seq <= ? AND op = ? GROUP BY table_id, row_key
                ON CONFLICT DO UPDATE SET clock = max(clock, excluded.clock);
                DELETE FROM rollingsync_tombstones WHERE (table_id, row_key) IN (
                    SELECT c.table_id, c.row_key FROM rollingsync_changes AS c
                    JOIN rollingsync_tombstones AS t ON t.table_id = c.table_id AND t.row_key = c.row_key
                    WHERE c.seq <= ? GROUP BY c.table_id, c.row_key
                    HAVING max(CASE WHEN c.op = ? THEN c.clock END) > coalesce(max(CASE WHEN c.op = ? THEN c.clock END), -1));
                """,
            arguments: [lastSequence, delete, lastSequence, delete, writer, lastSequence, update, lastSequence, delete, lastSequence, insert, delete]
        )
        let counts = columnCounts.isEmpty
            ? "SELECT NULL AS table_id, 0 AS n WHERE 0"
            : "VALUES " + columnCounts.map { "(\($0.key), \($0.value))" }.joined(separator: ", ")
        try db.execute(
            sql: """
                WITH counts(table_id, n) AS (\(counts)),
                created AS MATERIALIZED (
                    SELECT table_id, row_key, max(CASE WHEN op = ? THEN clock END) AS clock FROM rollingsync_changes
                    WHERE seq <= ? GROUP BY table_id, row_key
                    HAVING max(CASE WHEN op = ? THEN clock END) > coalesce(max(CASE WHEN op = ? THEN clock END), -1)),
                edits AS (
                    SELECT u.table_id, u.row_key, u.column_name, max(u.clock) AS clock FROM rollingsync_changes AS u
                    JOIN created AS c ON c.table_id = u.table_id AND c.row_key = u.row_key
                    WHERE u.seq <= ? AND u.op = ? AND u.clock > c.clock GROUP BY u.table_id, u.row_key, u.column_name),
                edited AS (
                    SELECT table_id, row_key, count(*) AS columns, min(clock) AS oldest FROM edits GROUP BY table_id, row_key)
                INSERT INTO rollingsync_cell_clocks (table_id, row_key, column_name, clock, writer)
                SELECT c.table_id, c.row_key, ?, CASE WHEN n.n > 0 AND e.columns >= n.n THEN e.oldest ELSE c.clock END, ?
                FROM created AS c LEFT JOIN edited AS e ON e.table_id = c.table_id AND e.row_key = c.row_key
                LEFT JOIN counts AS n ON n.table_id = c.table_id
                WHERE true
                \(newer);
                DELETE FROM rollingsync_changes WHERE seq <= ?;
                INSERT INTO rollingsync_applied_sets (set_id, client_id, change_count, maximum_clock)
                VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING;
                """,
            arguments: [
                insert, lastSequence, insert, delete, lastSequence, update, LocalStoreSchema.rowClockColumn, writer,
                lastSequence, setID, databaseID, changeCount, maximumClock.databaseInteger,
            ]
        )
    }
}
