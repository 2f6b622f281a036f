import GRDB

/// Runs RollingSync's schema migrations and records them in RollingSync's own table,
/// `rollingsync_migrations`, never in GRDB's `grdb_migrations`, which belongs to the
/// application's own `DatabaseMigrator`: a migrator that finds identifiers it does not know there
/// takes its migrations as superseded (and, with `eraseDatabaseOnSchemaChange`, erases the
/// database).
///
/// Databases written by releases before 2026-11-26 recorded RollingSync's identifiers in
/// `grdb_migrations`: they are moved to `rollingsync_migrations` (and `grdb_migrations` is dropped
/// when that leaves it empty, as RollingSync created it then), so those databases keep their
/// applied migrations.
///
/// All pending migrations run in one write transaction, in registration order; a failure rolls
/// every one of them back. Several migrators share the table (SyncCore's and the command line's),
/// each owning the identifiers that start with its ``identifierPrefix``. A database that recorded a
/// migration with this migrator's prefix that it does not register was upgraded by a newer
/// release, which may have reshaped the tables this one writes: it is refused (``LocalStoreError/Code/newerRelease``), unchanged. (Releases before 2026-11-27 do not
/// check this: they fail at their first write into a reshaped table, with SQLite's error.)
package struct RollingSyncMigrator: Sendable {
    /// The table that records the applied migrations.
    static let table = "\(LocalStoreSchema.prefix)migrations"

    private var migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = []

    /// The identifiers RollingSync recorded in `grdb_migrations` before it had its own table.
    private let formerGRDBIdentifiers: Set<String>

    /// The start of every identifier this migrator registers, and of none another one registers.
    let identifierPrefix: String

    /// A migrator of the identifiers starting with `identifierPrefix`; `formerGRDBIdentifiers` are
    /// moved out of `grdb_migrations` when found there.
    package init(identifierPrefix: String, formerGRDBIdentifiers: Set<String>) {
        self.identifierPrefix = identifierPrefix
        self.formerGRDBIdentifiers = formerGRDBIdentifiers
    }

    /// Registers a migration, run once per database after those registered before it. Its
    /// identifier must start with ``identifierPrefix``.
    package mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        precondition(identifier.hasPrefix(identifierPrefix), "migration \(identifier) lacks the prefix \(identifierPrefix)")
        migrations.append((identifier, migrate))
    }

    /// Runs the migrations `writer`'s database has not applied yet.
    /// - Throws: ``LocalStoreError/Code/newerRelease`` if the database applied one this migrator
    ///   does not register; a GRDB error if a migration fails.
    package func migrate(_ writer: any DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.table) (identifier TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
            try adoptFormerIdentifiers(db)
            let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM \(Self.table)"))
            let newer = applied.filter { $0.hasPrefix(identifierPrefix) }.subtracting(migrations.map(\.identifier))
            if let newer = newer.min() {
                throw LocalStoreError(.newerRelease, table: Self.table, detail: newer)
            }
            for (identifier, migrate) in migrations where !applied.contains(identifier) {
                try migrate(db)
                try db.execute(sql: "INSERT INTO \(Self.table) (identifier) VALUES (?)", arguments: [identifier])
            }
        }
    }

    /// Moves RollingSync's identifiers from `grdb_migrations` to its own table.
    private func adoptFormerIdentifiers(_ db: Database) throws {
        guard !formerGRDBIdentifiers.isEmpty, try db.tableExists("grdb_migrations") else { return }
        for identifier in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") where formerGRDBIdentifiers.contains(identifier) {
            try db.execute(sql: "INSERT OR IGNORE INTO \(Self.table) (identifier) VALUES (?)", arguments: [identifier])
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [identifier])
        }
        if try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") == 0 {
            try db.execute(sql: "DROP TABLE grdb_migrations")
        }
    }
}
