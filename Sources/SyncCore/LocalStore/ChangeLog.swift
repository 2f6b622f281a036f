import GRDB

/// Stamps change-log rows with hybrid logical clock timestamps.
///
/// A capture trigger records only what it must observe at write time: the wall clock (in SQL, as a
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
enum ChangeLogClock {
    /// Stamps every unstamped log row and advances `rollingsync_state.clock` to the newest stamp.
    /// - Returns: the `seq` of the newest log row (all rows up to it are stamped), or `nil` if the
    ///   log is empty.
    @discardableResult
    static func stamp(in db: Database) throws -> Int64? {
        try db.execute(sql: """
            UPDATE rollingsync_changes SET clock = stamped.hlc FROM (
                SELECT seq, seq + max(
                    (SELECT clock FROM rollingsync_state) + 1
                        - (SELECT min(seq) FROM rollingsync_changes WHERE clock IS NULL),
                    max(\(LocalStoreSchema.hybridClockCandidate(ofWall: "wall")) - seq) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING)) AS hlc
                FROM rollingsync_changes WHERE clock IS NULL
            ) AS stamped
            WHERE rollingsync_changes.seq = stamped.seq;
            UPDATE rollingsync_state SET clock = max(clock, coalesce(
                (SELECT clock FROM rollingsync_changes ORDER BY seq DESC LIMIT 1), 0));
            """)
        return try Int64.fetchOne(db, sql: "SELECT max(seq) FROM rollingsync_changes")
    }

    /// Advances the state clock past a clock seen elsewhere (the HLC receive rule). Stamp the log
    /// first, so that earlier local changes keep their earlier clocks.
    static func observe(_ clock: HLCTimestamp, in db: Database) throws {
        try db.execute(
            sql: "UPDATE rollingsync_state SET clock = max(clock, ?)",
            arguments: [clock.databaseInteger]
        )
    }
}
