import Foundation
import GRDB

extension LocalStore {
    /// Applies another client's change set, all or nothing.
    ///
    /// 1. The whole file is read and verified first (structure, change count, CRC-32); a corrupt or
    ///    truncated set throws ``ChangeSetFormatError`` before anything is touched.
    /// 2. One write transaction then, with foreign keys off (see ``withForeignKeysOff(_:)``):
    ///    returns early if the set id is already recorded (applying the
    ///    same set twice is a no-op, reported with ``ApplyReport/wasAlreadyApplied``); suppresses capture
    ///    (``ChangeLog/withCaptureSuppressed(_:_:)``) so the capture triggers record nothing (no
    ///    echo; the switch is invisible to other connections and
    ///    rolled back with the transaction); applies all inserts, then all updates, then all deletes
    ///    (one streaming pass over the file per kind present, each re-verifying the trailer); records the set as
    ///    applied; advances the local clock past the set's clocks; clears the flag; commits.
    ///    A set whose oldest change is newer than everything this database has seen or written (the
    ///    usual case when sets are applied in order of ``ChangeSetSummary/maximumClock``) cannot hold
    ///    a stale value, so it skips the per-cell clock and tombstone lookups; a late set gets them.
    ///    Before the commit, references the set left dangling to deleted rows are settled by the
    ///    reference rule (``ReferenceSettlement``), so no foreign key can make the set (and every
    ///    later sync) fail; a row change refused by another constraint is skipped and reported.
    /// 3. Any error (resolver error, a file altered between passes, a disk error, a crash) rolls
    ///    everything back: the set stays unapplied.
    ///
    /// See ``ChangeSetApplier`` for the per-row rules (upserts, updates of missing rows, deletions
    /// winning, last-writer-wins).
    /// - Parameters:
    ///   - url: a change set file (typically just downloaded).
    ///   - resolver: decides conflicts with unpushed local edits; last writer wins by default.
    /// - Returns: what was done, including conflicts and delete-versus-update warnings.
    /// - Throws: ``ChangeSetFormatError``, ``LocalStoreError`` (unregistered table, unknown column),
    ///   the resolver's error, or a GRDB `DatabaseError`.
    @discardableResult
    package func applyChangeSet(at url: URL, resolver: ConflictResolver = .lastWriterWins) throws -> ApplyReport {
        try apply(at: url, resolver: resolver, then: .commit)
    }

    /// Runs the whole apply of a change set and rolls it back: reports what
    /// ``applyChangeSet(at:resolver:)`` would do, including every conflict with unpushed local edits
    /// (decided by `resolver`, last writer wins by default), without changing anything.
    ///
    /// Use it to show conflicts to a user before applying with their decisions.
    package func previewChangeSet(at url: URL, resolver: ConflictResolver = .lastWriterWins) throws -> ApplyReport {
        try apply(at: url, resolver: resolver, then: .rollback)
    }

    /// Applies a set the caller has just verified with ``ChangeSetReader/verifiedContents(ofFileAt:)``
    /// (a sync verifies each set as it is downloaded), sparing a second verification pass; the
    /// apply pass still checks the trailer against `verified` and rolls back on any difference.
    ///
    /// With `holdingUpdatesOfUnseenRows` (other sets are held back), an update of a row never seen
    /// here throws ``UpdateOfUnseenRow`` and nothing is applied, instead of being ignored.
    func applyChangeSet(
        at url: URL, verified: ChangeSetReader.VerifiedContents, resolver: ConflictResolver, holdingUpdatesOfUnseenRows: Bool = false
    ) throws -> ApplyReport {
        try apply(at: url, resolver: resolver, then: .commit, verified: verified, holdingUpdatesOfUnseenRows: holdingUpdatesOfUnseenRows)
    }

    /// Verifies the set (unless `verified`), then applies it in one immediate transaction with
    /// foreign keys off, which ends with `completion` (commit, or rollback for a preview).
    private func apply(
        at url: URL, resolver: ConflictResolver, then completion: Database.TransactionCompletion,
        verified: ChangeSetReader.VerifiedContents? = nil, holdingUpdatesOfUnseenRows: Bool = false
    ) throws -> ApplyReport {
        let contents = try verified ?? ChangeSetReader.verifiedContents(ofFileAt: url)
        let summary = contents.summary
        return try withForeignKeysOff { db in
            try Self.withPageCache(forWriting: summary.changeCount, in: db) {
                var report: ApplyReport?
                try db.inTransaction(.immediate) {
                    report = try apply(contents, from: url, resolver: resolver, holdingUpdatesOfUnseenRows: holdingUpdatesOfUnseenRows, in: db)
                    return completion
                }
                return report ?? ApplyReport(setID: summary.header.setID, databaseID: summary.header.databaseID, wasAlreadyApplied: true)
            }
        }
    }

    /// The page cache an apply of ``bulkChangeCount`` changes or more gets: 32 MiB.
    private static let bulkPageCacheKiB = 32 * 1024
    /// From how many changes a set is applied with the larger page cache.
    private static let bulkChangeCount = 10_000

    /// Runs `body`, which writes `changeCount` changes, with the connection's page cache raised to
    /// at least 32 MiB when they are many (10,000 or more), then sets the connection's own size
    /// back, whatever happens (SQLite then frees the pages beyond it). SQLite's default cache of
    /// 2 MiB keeps writing out and reading back the pages of an index written at random places
    /// (keys such as UUIDs): with 32 MiB, applying 1M such rows took 13 % less time here.
    private static func withPageCache<Result>(forWriting changeCount: Int, in db: Database, _ body: () throws -> Result) throws -> Result {
        guard changeCount >= bulkChangeCount else { return try body() }
        let size = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0
        // A negative size is in KiB, a positive one in pages.
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        let kibibytes = size < 0 ? -size : size * pageSize / 1024
        guard kibibytes < bulkPageCacheKiB else { return try body() }
        try db.execute(sql: "PRAGMA cache_size = -\(bulkPageCacheKiB)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(size)") }
        return try body()
    }

    /// Gives the changes the data rules made while a change set was replayed (a restore) the clock
    /// of that point of the history (``ChangeLog/stampAtKnownClock(in:)``).
    func stampReplayEffects() throws {
        try writer.write { db in try ChangeLog.stampAtKnownClock(in: db) }
    }

    /// The conflicts between a change set and the unpushed local edits (same column of the same row,
    /// different values), without applying anything.
    package func conflicts(inChangeSetAt url: URL) throws -> [Conflict] {
        try previewChangeSet(at: url).conflicts.map(\.conflict)
    }

    /// Applies a verified set; its kinds (from the verification pass) spare the passes of absent
    /// kinds, and its oldest clock tells whether it is late.
    private func apply(
        _ contents: ChangeSetReader.VerifiedContents, from url: URL, resolver: ConflictResolver, holdingUpdatesOfUnseenRows: Bool, in db: Database
    ) throws -> ApplyReport {
        let summary = contents.summary
        let kinds = contents.kinds
        let header = summary.header
        let alreadyApplied = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_applied_sets WHERE set_id = ?)",
            arguments: [header.setID]
        ) ?? false
        guard !alreadyApplied else {
            return ApplyReport(setID: header.setID, databaseID: header.databaseID, wasAlreadyApplied: true)
        }
        try ChangeLog.stamp(in: db)
        let known = try Int64.fetchOne(db, sql: "SELECT clock FROM rollingsync_state") ?? 0
        // Late when any change or cell is not newer than every clock known here: a column keeps its
        // own edit's clock, older than its change's, so the change clocks alone do not tell.
        let isLate = (contents.oldestClock ?? summary.minimumClock).databaseInteger <= known
        if isLate {
            try LocalStoreSchema.compactAppliedClocks(in: db)
        }
        try db.execute(
            sql: "INSERT INTO rollingsync_applied_sets (set_id, client_id, change_count, maximum_clock) VALUES (?, ?, ?, ?)",
            arguments: [header.setID, header.databaseID, summary.changeCount, summary.maximumClock.databaseInteger]
        )
        let setNumber = db.lastInsertedRowID
        let appliedClocksBefore = try LocalStoreSchema.appliedClockSpan(in: db)
        return try ChangeLog.withCaptureSuppressed(db) {
            var applier = try ChangeSetApplier(
                db: db,
                header: header,
                setNumber: setNumber,
                isLate: isLate,
                holdsUpdatesOfUnseenRows: holdingUpdatesOfUnseenRows,
                localDatabaseID: databaseID,
                resolver: resolver
            )
            for kind in [RowChange.Kind.insert, .update, .delete] where kinds.contains(kind) {
                let reader = try ChangeSetReader(contentsOf: url)
                guard reader.header == header else { throw ChangeSetFormatError(.malformed("the file changed while it was applied")) }
                while let change = try reader.next(ofKind: kind) {
                    try applier.apply(change)
                }
                guard reader.summary == summary else { throw ChangeSetFormatError(.malformed("the file changed while it was applied")) }
            }
            try applier.finish()
            try LocalStoreSchema.foldAppliedClocksIfMostlyRepeats(spanBefore: appliedClocksBefore, in: db)
            try ChangeLog.observe(summary.maximumClock, in: db)
            return applier.report
        }
    }
}

extension LocalStore {
    /// Runs `body` on the writer's connection outside any transaction, with `PRAGMA foreign_keys`
    /// off (a pragma SQLite ignores inside a transaction), and restores the connection's setting
    /// afterwards, whatever happens. RollingSync's writes of synced data run this way so that they
    /// never fire the schema's own `ON DELETE` actions (which would act in the order rows happen to
    /// be written) and never fail at commit: the reference rule settles references itself, the
    /// same way on every client whether the application has foreign keys on or off.
    func withForeignKeysOff<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try writer.writeWithoutTransaction { db in
            let enabled = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
            if enabled { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
            defer { if enabled { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
            return try body(db)
        }
    }
}
