import Foundation
import GRDB

extension LocalStore {
    /// Writes a consistent, compact copy of the whole database (application tables and RollingSync's
    /// own tables) to a new file, for whole-store upload, while the application keeps writing.
    ///
    /// Uses `VACUUM INTO` on a reading connection: the copy reflects exactly one committed state (no
    /// half transaction), has no WAL or journal beside it, and is written without blocking writers of
    /// a `DatabasePool` (a `DatabaseQueue` serializes it with its writes). Rows whose key is NULL
    /// (``SyncedTable/keyMayBeNull``) stay local: they are deleted from the copy.
    /// - Parameter url: the destination; it must not exist yet.
    /// - Throws: a GRDB `DatabaseError` (e.g. when the destination exists) or a file error.
    package func snapshot(to url: URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path])
        }
        let tablesWithNullableKeys = try writer.unsafeRead { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [url.path])
            return try Self.syncedTables(in: db).filter(\.keyMayBeNull)
        }
        guard !tablesWithNullableKeys.isEmpty else { return }
        try Self.removeRowsWithoutKey(of: tablesWithNullableKeys, fromCopyAt: url, configuration: applicationConfiguration)
    }

    /// Deletes the rows whose key is NULL from a snapshot copy, with foreign keys off (nothing
    /// cascades), the app's triggers on and its `configuration` (its indexes follow, with its
    /// collations and functions). The deletion is rolled back, and the rows kept, when a trigger
    /// wrote a synced table because of it (the copy would differ from this database where it
    /// counts) or failed (or the copy could not be opened): installing a whole store never takes
    /// such rows, and a client started from it keeps them as its own local rows.
    private static func removeRowsWithoutKey(of tables: [SyncedTable], fromCopyAt url: URL, configuration: Configuration) throws {
        do {
            let copy = try SchemaFile.open(url, configuration: configuration, foreignKeys: false)
            defer { try? copy.close() }
            try copy.inTransaction { db in
                let logged = try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_changes") ?? 0
                for table in tables {
                    try db.execute(sql: "DELETE FROM main.\(table.name.sqlIdentifier) WHERE NOT (\(table.key.isPresent()))")
                }
                let captured = (try Int.fetchOne(db, sql: "SELECT count(*) FROM rollingsync_changes") ?? 0) != logged
                return captured ? .rollback : .commit
            }
        } catch is DatabaseError {
            // The rows stay in the copy (see above).
        }
    }
}

extension LocalStore {
    /// Turns a snapshot written by another client's ``snapshot(to:)`` (a downloaded whole store) into
    /// this client's own database, before it replaces the local file and is opened with
    /// ``init(writer:)``.
    ///
    /// The snapshot keeps everything the sync needs (the rows, the applied set ids, the clocks of
    /// pushed and applied cells, the tombstones); this call gives it `databaseID` and drops the
    /// uploader's unpushed change log, which the uploader itself will still push (applying that set
    /// later rewrites values the snapshot already holds). The clock floor is kept, so new local
    /// changes are newer than everything in the snapshot.
    /// - Parameters:
    ///   - url: the snapshot file (not open elsewhere).
    ///   - databaseID: the identity to adopt, usually the local client's existing ``databaseID``; a fresh
    ///     UUID when `nil`.
    /// - Throws: a GRDB `DatabaseError` if the file is not a RollingSync database.
    package static func adoptSnapshot(at url: URL, databaseID: String? = nil) throws {
        let snapshot = try DatabaseQueue(path: url.path)
        try snapshot.write { db in
            try ChangeLog.stamp(in: db)
            try db.execute(sql: "UPDATE rollingsync_state SET client_id = ?", arguments: [databaseID ?? UUID().uuidString])
            try ChangeLog.reset(in: db)
        }
        try snapshot.close()
    }
}

extension LocalStore {
    /// Writes a new database at `destination` with the schema of the RollingSync database file at
    /// `source` (not open for writing elsewhere) and none of its data: every table, index, view
    /// and trigger, created from the source's own statements (shadow tables of virtual tables are
    /// made by their virtual table), and of RollingSync's tables only the configuration (synced
    /// tables, dropped and unsynced ones, the clock floor, the applied migrations). Point-in-time
    /// restore starts from such a file when it replays a document from its first change set.
    /// `configuration` is the application's, for the collations and functions the schema uses.
    static func writeEmptyDatabase(withSchemaOf source: URL, to destination: URL, configuration: Configuration) throws {
        let copy = try SchemaFile.open(destination, configuration: configuration)
        do {
            try copy.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [source.path])
                try db.inTransaction {
                    let shadow = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'source' AND type = 'shadow'"))
                    let statements = try Row.fetchAll(db, sql: """
                        SELECT name, sql FROM source.sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                        ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid
                        """)
                    for statement in statements where !shadow.contains(statement["name"]) {
                        try db.execute(sql: statement["sql"])
                    }
                    for table in configurationTables where try db.tableExists(table, in: "source") {
                        try db.execute(sql: "INSERT INTO main.\(table.sqlIdentifier) SELECT * FROM source.\(table.sqlIdentifier)")
                    }
                    return .commit
                }
                try db.execute(sql: "DETACH DATABASE source")
            }
            try copy.close()
        } catch {
            try? copy.close()
            throw error
        }
    }

    /// RollingSync's tables that hold configuration rather than history, kept by
    /// ``writeEmptyDatabase(withSchemaOf:to:configuration:)``.
    private static let configurationTables = [
        "\(LocalStoreSchema.prefix)state", "\(LocalStoreSchema.prefix)tables", "\(LocalStoreSchema.prefix)dropped_columns",
        "\(LocalStoreSchema.prefix)unsynced_tables", RollingSyncMigrator.table, "grdb_migrations",
    ]
}

extension LocalStore {
    /// Brings this store (a restored file, open only here) up to the schema of the RollingSync
    /// database `source` reads, as far as SQLite allows without rebuilding tables:
    /// - synced tables it lacks are created from the source's statements, and tables the source
    ///   syncs that it has but does not sync are registered;
    /// - columns it lacks are added with the source's type and default; one SQLite cannot add
    ///   (a `NOT NULL` column without a default, a default that is not a constant) is left out, so
    ///   a set that writes it is refused as needing an upgrade;
    /// - the source's indexes, views and triggers it lacks are created (those naming something it
    ///   lacks are left out), and the source's applied GRDB migrations are recorded, so the
    ///   application's own migrator does not run them again on the restored file.
    ///
    /// Columns and tables the source lacks stay. Point-in-time restore runs it on a whole store
    /// older than a schema migration, so change sets written after the migration apply.
    /// - Returns: whether anything was added.
    @discardableResult
    func adoptMissingSchema(of source: any DatabaseReader) throws -> Bool {
        let (wanted, objects, migrations) = try source.read { db in
            (
                try Self.syncedTables(in: db).map { table in
                    (
                        table: table.name,
                        create: try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [table.name]) ?? "",
                        columns: try Row.fetchAll(db, sql: "SELECT * FROM pragma_table_xinfo(?)", arguments: [table.name])
                    )
                },
                try Row.fetchAll(db, sql: """
                    SELECT name, sql FROM sqlite_schema WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL
                    AND name NOT LIKE '\(LocalStoreSchema.prefix)%' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    ORDER BY CASE type WHEN 'index' THEN 0 WHEN 'view' THEN 1 ELSE 2 END
                    """).map { (name: $0["name"] as String, sql: $0["sql"] as String) },
                try db.tableExists("grdb_migrations") ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
            )
        }
        let synced = Set(try syncedTables().map(\.name))
        var changed = false
        var toRegister: [String] = []
        try writer.write { db in
            for (table, create, columns) in wanted {
                guard try db.tableExists(table) else {
                    try db.execute(sql: create)
                    toRegister.append(table)
                    continue
                }
                if !synced.contains(table) { toRegister.append(table) }
                let present = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo(?)", arguments: [table]))
                for column in columns where !present.contains(column["name"] as String) && (column["hidden"] as Int? ?? 0) == 0 {
                    let name: String = column["name"]
                    let type: String = column["type"] ?? ""
                    let notNull = (column["notnull"] as Int? ?? 0) != 0
                    let defaultValue: String? = column["dflt_value"]
                    if notNull && (defaultValue == nil || defaultValue?.uppercased() == "NULL") { continue }
                    var definition = "\(name.sqlIdentifier) \(type)"
                    if let defaultValue { definition += " DEFAULT \(defaultValue)" }
                    if notNull { definition += " NOT NULL" }
                    // SQLite refuses some columns on a table with rows (a non-constant default).
                    if (try? db.execute(sql: "ALTER TABLE \(table.sqlIdentifier) ADD COLUMN \(definition)")) != nil { changed = true }
                }
            }
            let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema"))
            for object in objects where !existing.contains(object.name) {
                if (try? db.execute(sql: object.sql)) != nil { changed = true }
            }
            let migrations = migrations.filter { !LocalStoreSchema.formerGRDBIdentifiers.contains($0) }
            if !migrations.isEmpty {
                // As GRDB's migrator creates it.
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                for identifier in migrations {
                    try db.execute(sql: "INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
                }
            }
        }
        for table in toRegister {
            try register(table: table)
            changed = true
        }
        if changed { _ = try refreshSchema() }
        return changed
    }
}
