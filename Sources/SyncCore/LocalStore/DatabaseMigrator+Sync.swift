import GRDB

extension DatabaseMigrator {
    /// GRDB's `hasSchemaChanges(_:)` for a database RollingSync syncs: whether the database holds
    /// a migration this migrator does not know, or a schema other than the one its applied
    /// migrations create, **ignoring RollingSync's own tables and its capture triggers** on your
    /// tables (everything named `rollingsync_…`).
    ///
    /// GRDB's own check, and so `eraseDatabaseOnSchemaChange`, counts RollingSync's objects as a
    /// change and would erase a synced database at every launch. For the same development
    /// convenience, use this in its place:
    /// ```swift
    /// #if DEBUG
    /// if try dbQueue.read(migrator.hasSchemaChangesIgnoringSync) { try dbQueue.erase() }
    /// #endif
    /// try migrator.migrate(dbQueue)
    /// // then open RollingSync (LocalStore, DocumentSyncManager.open…)
    /// ```
    /// Erasing removes RollingSync's state too: the database then syncs as a new client. Do it
    /// before RollingSync opens the database, never while a sync manager uses it.
    public func hasSchemaChangesIgnoringSync(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        guard applied.isSubset(of: Set(migrations)) else { return true }
        guard let last = migrations.last(where: applied.contains) else { return false }
        let scratch = try DatabaseQueue()
        try migrate(scratch, upTo: last)
        return try Self.applicationSchema(db) != scratch.read(Self.applicationSchema)
    }

    /// The schema objects of `db` that neither SQLite, GRDB nor RollingSync made.
    private static func applicationSchema(_ db: Database) throws -> Set<String> {
        Set(try Row.fetchAll(db, sql: """
            SELECT type, name, tbl_name, sql FROM main.sqlite_schema
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'grdb\\_%' ESCAPE '\\'
                AND name NOT LIKE 'rollingsync\\_%' ESCAPE '\\'
            """).map(\.description))
    }
}
