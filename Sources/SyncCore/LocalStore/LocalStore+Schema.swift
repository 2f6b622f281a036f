import GRDB

extension LocalStore {
    /// Notices schema changes of the synced tables and follows them (see ``SchemaChange``): capture
    /// triggers for added columns, whose values written before now are published; dropped columns
    /// recorded; missing triggers restored, and triggers an older release wrote replaced by this
    /// release's (silently: they captured every write). Every sync calls it first; call it yourself right after
    /// a migration if you like. Cheap when nothing changed (it compares `PRAGMA schema_version`).
    ///
    /// `ALTER TABLE … ADD COLUMN` needs nothing more. Dropping or renaming a column, or rebuilding a
    /// table, needs ``changeSchema(_:)`` (SQLite refuses to drop a column a trigger uses).
    /// - Returns: what changed, empty when nothing did.
    /// - Throws: ``LocalStoreError`` if a synced table is gone or its key changed (the message says
    ///   which); nothing is changed then.
    @discardableResult
    public func refreshSchema() throws -> [SchemaChange] {
        if try writer.read({ db in try Self.schemaIsChecked(in: db) }) { return [] }
        return try writer.write { db in try SchemaRefresh.run(in: db, force: false) }
    }

    private static func schemaIsChecked(in db: Database) throws -> Bool {
        let version = try Int64.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        return try Int64.fetchOne(db, sql: "SELECT schema_version FROM rollingsync_state") == version
    }

    /// Runs the application's migration of synced tables in one transaction with the capture
    /// triggers out of the way, then follows the new schema as ``refreshSchema()`` does: use it for
    /// `DROP COLUMN`, `RENAME COLUMN` and table rebuilds (SQLite's 12-step `ALTER TABLE`
    /// procedure), which the triggers would otherwise block or miss; it works for `ADD COLUMN`
    /// too.
    ///
    /// As SQLite's own procedure for rebuilding a table requires, `body` runs with foreign keys off
    /// (so a `DROP TABLE` of a rebuild does not cascade), and the migration is refused if
    /// `PRAGMA foreign_key_check` then finds more dangling references than before.
    /// Writes the migration itself makes are not logged (every client runs the same migration),
    /// except values in added columns that differ from the default, which are published. A renamed
    /// column is a dropped column plus an added one. If `body` or the checks throw (a synced
    /// table's key changed, say), everything is rolled back and the database is unchanged.
    /// - Returns: what changed.
    @discardableResult
    public func changeSchema(_ body: (Database) throws -> Void) throws -> [SchemaChange] {
        try withForeignKeysOff { db in
            var changes: [SchemaChange] = []
            try db.inTransaction(.immediate) {
                try ChangeLog.stamp(in: db)
                for id in try Int64.fetchAll(db, sql: "SELECT id FROM rollingsync_tables") {
                    try CaptureTriggers.drop(tableID: id, in: db)
                }
                let violationsBefore = try Self.foreignKeyViolations(in: db)
                try body(db)
                let violationsAfter = try Self.foreignKeyViolations(in: db)
                if let table = violationsAfter.first(where: { $0.value > violationsBefore[$0.key, default: 0] })?.key {
                    throw LocalStoreError(.referencesBroken, table: table)
                }
                changes = try SchemaRefresh.run(in: db, force: true)
                return .commit
            }
            return changes
        }
    }

    /// The number of rows `PRAGMA foreign_key_check` reports, by table.
    private static func foreignKeyViolations(in db: Database) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
            counts[row[0] as String, default: 0] += 1
        }
        return counts
    }

    /// Starts synchronizing another table after set-up: registers it and logs every existing row
    /// as an insert, so the next sync publishes them to the other clients (which must register the
    /// table too: until they do, they hold these sets back and report ``SyncWarning/upgradeRequired(table:column:fromClient:fileName:)``).
    /// For a table already registered, it only checks the registration, publishing nothing.
    /// - Returns: the change (``SchemaChange/tableAdded(table:publishedRows:)``), or `nil` if the
    ///   table was already synced.
    /// - Throws: ``LocalStoreError`` if the table is missing or unsuitable.
    @discardableResult
    public func addSyncedTable(_ name: String) throws -> SchemaChange? {
        try writer.write { db in try Self.addSyncedTable(name, in: db) }
    }

    /// ``addSyncedTable(_:)`` in the current transaction.
    static func addSyncedTable(_ name: String, in db: Database) throws -> SchemaChange? {
        let (table, isNew) = try register(table: name, in: db)
        guard isNew else { return nil }
        return .tableAdded(table: table.name, publishedRows: try ChangeLog.recordEveryRow(of: table, in: db))
    }
}
