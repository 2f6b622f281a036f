import GRDB

/// Keeps the app's own triggers from writing synced tables while RollingSync writes what the
/// clients decided (applying a change set, installing a whole store and merging into it,
/// reinstating rows after a restore), and lets them do everything else.
///
/// The rule (Docs/Conflicts.md, "Your own triggers"): the client where a change was made ran the
/// app's triggers then, and captured and published what they wrote to synced tables, like any
/// other local write. A receiver running them again on the same change would write a second,
/// unpublished version of those effects (a newer `updated_at`, a count incremented twice, an
/// audit row nobody else has): clients would diverge silently. So while RollingSync writes synced
/// rows with capture suppressed, every write that an app trigger makes to a synced table is
/// skipped; writes to anything else (an FTS index, a cache, any unsynced table) go through, so
/// derived data follows the rows on every client. A skipped write fires no further triggers, so
/// derived data stays consistent with the synced rows it was derived from.
///
/// How: TEMP `BEFORE INSERT/UPDATE/DELETE` triggers on each synced table answer `RAISE(IGNORE)`
/// (skip this row, carry on) while capture is suppressed, unless the row is the one RollingSync
/// itself is about to write: each of its statements writes one row, and ``permit(_:key:)``, called
/// right before it, lets exactly one write of that row through. The app's `AFTER` triggers run
/// after that write has used the permit, so their writes to the same row are skipped too.
/// Validation triggers (`BEFORE … RAISE(ABORT, …)`) still refuse rows as a CHECK constraint does.
///
/// Installed for one transaction only, and only when an app trigger is defined on a synced table
/// (otherwise nothing can write synced tables behind RollingSync's back, and writes stay as fast as
/// before). Writes RollingSync makes with capture on (rows removed by a rule, references settled)
/// are local writes: the app's triggers act on them as on any local write, and what they write is
/// captured and published.
struct AppTriggerGuard {
    /// The synced tables, by id.
    private let tables: [Int64: SyncedTable]
    private let db: Database

    /// Installs the guard in the current transaction, or returns `nil` when no app trigger is
    /// defined on any of `tables` (then nothing needs guarding).
    static func install(for tables: [SyncedTable], in db: Database) throws -> AppTriggerGuard? {
        guard try hasAppTriggers(on: tables, in: db) else { return nil }
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.rollingsync_permit;
            CREATE TEMP TABLE rollingsync_permit (slot INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, row_key);
            DROP TABLE IF EXISTS temp.rollingsync_skipped;
            CREATE TEMP TABLE rollingsync_skipped (table_id INTEGER NOT NULL, row_key);
            """)
        for table in tables {
            try dropTriggers(of: table.id, in: db)
            for (event, row) in [("INSERT", "new"), ("UPDATE", "old"), ("DELETE", "old")] {
                // The key column on the left of IS, so its collation decides, as in the engine's
                // own `WHERE key = ?`. No statement here can meet a conflict: an app trigger's
                // `OR ABORT`/`OR ROLLBACK` replaces the conflict clause of the statements it fires.
                let key = table.key.value(of: row)
                let unpermitted = """
                    WHERE NOT EXISTS (SELECT 1 FROM temp.rollingsync_permit WHERE table_id = \(table.id) AND \(key) IS row_key)
                    """
                // Rows whose key is NULL are local only (never published): the app's triggers keep
                // them here as on any local write.
                let localOnly = switch event {
                case "INSERT": "NOT (\(table.key.isPresent(in: "new")))"
                case "UPDATE": "NOT (\(table.key.isPresent(in: "old"))) AND NOT (\(table.key.isPresent(in: "new")))"
                default: "NOT (\(table.key.isPresent(in: "old")))"
                }
                let condition = table.keyMayBeNull ? "\(ChangeLog.captureIsSuppressed) AND NOT (\(localOnly))" : ChangeLog.captureIsSuppressed
                try db.execute(sql: """
                    CREATE TEMP TRIGGER \("rollingsync_guard_\(table.id)_\(event.lowercased())".sqlIdentifier)
                    BEFORE \(event) ON main.\(table.name.sqlIdentifier)
                    WHEN \(condition) BEGIN
                        INSERT INTO rollingsync_skipped (table_id, row_key) SELECT \(table.id), \(key) \(unpermitted)
                            AND NOT EXISTS (SELECT 1 FROM temp.rollingsync_skipped WHERE table_id = \(table.id) AND \(key) IS row_key);
                        SELECT RAISE(IGNORE) \(unpermitted);
                        DELETE FROM rollingsync_permit;
                    END
                    """)
            }
        }
        return AppTriggerGuard(tables: Dictionary(uniqueKeysWithValues: tables.map { ($0.id, $0) }), db: db)
    }

    /// Whether an app trigger (any trigger that is not RollingSync's, in the file or a TEMP one of
    /// this connection) is defined on one of `tables`.
    static func hasAppTriggers(on tables: [SyncedTable], in db: Database) throws -> Bool {
        guard !tables.isEmpty else { return false }
        let names = Array(repeating: "?", count: tables.count).joined(separator: ", ")
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM (SELECT name, tbl_name, type FROM main.sqlite_master
                    UNION ALL SELECT name, tbl_name, type FROM temp.sqlite_master)
                    WHERE type = 'trigger' AND name NOT LIKE 'rollingsync\\_%' ESCAPE '\\'
                    AND tbl_name COLLATE NOCASE IN (\(names)))
                """,
            arguments: StatementArguments(tables.map(\.name))
        ) ?? false
    }

    /// Lets the next write of row `key` of `table` through: call it right before a statement that
    /// writes that one row with capture suppressed. Replaces an unused earlier permit.
    func permit(_ table: SyncedTable, key: DatabaseValue) throws {
        try db.cachedStatement(sql: "REPLACE INTO temp.rollingsync_permit (slot, table_id, row_key) VALUES (1, ?, ?)")
            .execute(arguments: [table.id, key])
    }

    /// The rows of synced tables whose writes by app triggers were skipped since the guard was
    /// installed, by table name, keys in the order first met; as ``ApplyReport/Warning``s, one per
    /// table. Forgets them.
    func takeSkippedWrites() throws -> [ApplyReport.Warning] {
        let rows = try Row.fetchAll(db, sql: "SELECT table_id, row_key FROM temp.rollingsync_skipped ORDER BY rowid")
        try db.execute(sql: "DELETE FROM temp.rollingsync_skipped")
        var keys: [Int64: [DatabaseValue]] = [:]
        for row in rows { keys[row["table_id"], default: []].append(row["row_key"]) }
        return keys.keys.sorted().compactMap { id in
            tables[id].map { ApplyReport.Warning.appTriggerWritesSkipped(table: $0.name, keys: keys[id] ?? []) }
        }
    }

    /// Drops the guard's triggers and tables (also rolled back with the transaction).
    func remove() throws {
        for id in tables.keys {
            try Self.dropTriggers(of: id, in: db)
        }
        try db.execute(sql: "DROP TABLE IF EXISTS temp.rollingsync_permit; DROP TABLE IF EXISTS temp.rollingsync_skipped")
    }

    private static func dropTriggers(of tableID: Int64, in db: Database) throws {
        for event in ["insert", "update", "delete"] {
            try db.execute(sql: "DROP TRIGGER IF EXISTS temp.\("rollingsync_guard_\(tableID)_\(event)".sqlIdentifier)")
        }
    }
}

extension Optional where Wrapped == AppTriggerGuard {
    /// ``AppTriggerGuard/permit(_:key:)`` when a guard is installed; nothing otherwise.
    func permit(_ table: SyncedTable, key: DatabaseValue) throws {
        try self?.permit(table, key: key)
    }
}
