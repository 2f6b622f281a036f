import Foundation
import GRDB

/// RollingSync's local half: change capture, pending changes, atomic apply and snapshots on the
/// application's own SQLite database.
///
/// Create one per database with the application's GRDB `DatabaseQueue` or `DatabasePool`; the
/// initializer creates or migrates RollingSync's own tables (all named `rollingsync_…`) in the same
/// database. Then:
/// 1. ``register(table:)`` each synced table (again after every schema change of that table);
/// 2. the application writes as usual, through any connection or tool: triggers log each change
///    with a hybrid logical clock in the same transaction;
/// 3. a sync (``DocumentSyncManager/synchronize()``) pushes the pending changes as one change set
///    and applies other clients' sets in clock order, each in one transaction;
/// 4. a whole-store upload (``DocumentSyncManager/uploadWholeStore(keepingHistoryFor:)``) sends a
///    snapshot of the database; a download installs one in place, in one transaction, re-basing
///    the unpushed changes (``WholeStoreInstallation``).
///
/// Keys of deleted rows must not be reused: a deletion leaves a tombstone and wins over any later
/// change of that key arriving from a client that had not seen it.
///
/// All methods are synchronous and use the writer's own serialization; call them off the main
/// thread. The sync engine calls them from async code on a queue of the store's own, never on
/// Swift's cooperative pool.
public final class LocalStore: Sendable {
    /// The database connection (queue or pool) shared with the application.
    package let writer: any DatabaseWriter

    /// The application's GRDB configuration, which files of this database's schema (snapshots,
    /// downloaded whole stores) are opened with, so that they know its collations and functions
    /// (``SchemaFile``).
    package var applicationConfiguration: Configuration { writer.configuration }

    /// Where ``perform(_:)`` runs the blocking calls of async callers: one serial queue per store.
    private let blockingCalls = DispatchQueue(label: "rollingsync.localstore")

    /// This database's database id (a UUID string created with RollingSync's tables); every local
    /// change carries it.
    public let databaseID: String

    /// Opens the local store on an application database, creating or upgrading RollingSync's tables.
    /// - Throws: a GRDB `DatabaseError` if the database cannot be written.
    public init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try LocalStoreSchema.migrator.migrate(writer)
        databaseID = try writer.read { db in
            try String.fetchOne(db, sql: "SELECT client_id FROM rollingsync_state") ?? ""
        }
    }

    /// Opens the local store as ``init(writer:)`` does, off Swift's cooperative pool: creating or
    /// upgrading RollingSync's tables may wait for a lock, up to the connection's busy timeout.
    package static func open(writer: any DatabaseWriter) async throws -> LocalStore {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try LocalStore(writer: writer) })
            }
        }
    }

    /// Runs `body` (blocking calls of this store: an apply, a busy wait on a locked database) on
    /// the store's own serial queue and suspends until it returns, so that no thread of Swift's
    /// cooperative pool waits for SQLite meanwhile (other tasks, timers included, keep running).
    /// Calls made through it run one at a time, in order. Cancelling the task does not stop a
    /// call that has started.
    package func perform<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            blockingCalls.async {
                continuation.resume(with: Swift.Result { try body() })
            }
        }
    }

    // MARK: Synced tables

    /// Registers a table for synchronization, or checks its registration after a schema change
    /// (as ``refreshSchema()`` does for every table): the capture triggers are (re)generated for the
    /// table's current columns. Existing rows are not logged as changes (a whole-store upload
    /// carries them; ``addSyncedTable(_:)`` publishes them instead).
    /// - Returns: the table's registration.
    /// - Throws: ``LocalStoreError`` if the table is missing or unsuitable (see
    ///   ``SyncedTable`` for the rules; the message says why), or if its key changed.
    @discardableResult
    public func register(table name: String) throws -> SyncedTable {
        try writer.write { db in try Self.register(table: name, in: db).table }
    }

    /// Registers or checks a table in the current transaction; `isNew` when it was not registered.
    static func register(table name: String, in db: Database) throws -> (table: SyncedTable, isNew: Bool) {
        _ = try SyncedTable.inspect(name, in: db)
        let canonicalName = try String.fetchOne(
            db,
            sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND name = ? COLLATE NOCASE",
            arguments: [name]
        ) ?? name
        if let row = try Row.fetchOne(
            db, sql: "SELECT id, name, key_column, key_type, columns FROM rollingsync_tables WHERE name = ?", arguments: [canonicalName]
        ) {
            _ = try SchemaRefresh.refresh(row, in: db)
            return (try syncedTable(canonicalName, in: db), false)
        }
        let shape = try SyncedTable.inspect(canonicalName, in: db)
        try db.execute(
            sql: """
                DELETE FROM rollingsync_unsynced_tables WHERE name = ?;
                INSERT INTO rollingsync_tables (name, key_column) VALUES (?, ?);
                """,
            arguments: [canonicalName, canonicalName, SchemaRefresh.recorded(shape.keyColumns)]
        )
        let tables = try syncedTables(in: db)
        guard let table = tables.first(where: { $0.name == canonicalName }) else { throw LocalStoreError(.noSuchTable, table: name) }
        try RowIdentity.assignEveryRow(of: table, in: db)
        try RowIdentity.keepRowids(of: table, in: db)
        try CaptureTriggers(table: table).install(in: db)
        try SchemaRefresh.record(table, in: db)
        // Keys made of references to the new table now name their rows by its identities: their
        // triggers are generated again, by the schema check, which keeps what they record in step
        // with the table's recorded columns.
        for other in tables where other.id != table.id && other.keyColumns.contains(where: { other.localReferences[$0] == table.id }) {
            if let registration = try Row.fetchOne(
                db, sql: "SELECT id, name, key_column, key_type, columns FROM rollingsync_tables WHERE id = ?", arguments: [other.id]
            ) {
                _ = try SchemaRefresh.refresh(registration, as: other, in: db)
            }
        }
        return (table, true)
    }

    /// Stops capturing a table's changes: drops its triggers and its unpushed changes. Its rows stay.
    /// Changes other clients still send for it are ignored with a warning
    /// (``ApplyReport/Warning/unsyncedTableIgnored(table:)``), until it is registered again.
    public func unregister(table name: String) throws {
        try writer.write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM rollingsync_tables WHERE name = ?", arguments: [name]) else {
                throw LocalStoreError(.unregisteredTable, table: name)
            }
            try CaptureTriggers.drop(tableID: id, in: db)
            try ChangeLog.dropChanges(ofTable: id, in: db)
            try RowIdentity.forget(tableID: id, in: db)
            for table in ["rollingsync_cell_clocks", "rollingsync_applied_clocks", "rollingsync_tombstones", "rollingsync_dropped_columns"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE table_id = ?", arguments: [id])
            }
            try db.execute(
                sql: "DELETE FROM rollingsync_tables WHERE id = ?; INSERT OR IGNORE INTO rollingsync_unsynced_tables (name) VALUES (?)",
                arguments: [id, name]
            )
        }
    }

    /// The registered tables, by name, with their current columns.
    public func syncedTables() throws -> [SyncedTable] {
        try writer.read { db in try Self.syncedTables(in: db) }
    }

    /// The names of the registered tables, without inspecting them: unlike ``syncedTables()``, it
    /// also answers when a registered table was dropped (so it can be unregistered).
    public func registeredTableNames() throws -> [String] {
        try writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM rollingsync_tables ORDER BY name") }
    }

    /// The synced tables holding rows whose key is NULL (or has a NULL column), with how many:
    /// such rows are never published (see ``SyncedTable/keyMayBeNull``). Only tables whose key may
    /// be NULL are looked at.
    package func rowsWithoutKey() throws -> [(table: String, count: Int)] {
        try writer.read { db in
            try Self.syncedTables(in: db).filter(\.keyMayBeNull).compactMap { table in
                let count = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM main.\(table.name.sqlIdentifier) WHERE NOT (\(table.key.isPresent()))"
                ) ?? 0
                return count > 0 ? (table.name, count) : nil
            }
        }
    }

    /// The registered tables as the schema now has them, with their ``SyncedTable/localReferences``.
    static func syncedTables(in db: Database) throws -> [SyncedTable] {
        try SyncedTable.resolvingReferences(
            Row.fetchAll(db, sql: "SELECT id, name FROM rollingsync_tables ORDER BY name").map { row in
                try SyncedTable(name: row["name"], id: row["id"], in: db)
            },
            in: db
        )
    }

    /// The registered table `name` (exactly as registered), as ``syncedTables(in:)`` gives it.
    static func syncedTable(_ name: String, in db: Database) throws -> SyncedTable {
        guard let table = try syncedTables(in: db).first(where: { $0.name == name }) else {
            throw LocalStoreError(.unregisteredTable, table: name)
        }
        return table
    }

    // MARK: Clock

    /// The change log's table, for observing local writes to synced tables: the capture
    /// triggers append to it (see ``AutomaticSync``).
    static let changeLogRegion = Table("\(LocalStoreSchema.prefix)changes")

    /// The hybrid logical clock of the latest local change or applied remote change.
    package func currentClock() throws -> HLCTimestamp {
        try writer.write { db in
            try ChangeLog.stamp(in: db)
            return HLCTimestamp(rawValue: UInt64(bitPattern: try Int64.fetchOne(db, sql: "SELECT clock FROM rollingsync_state") ?? 0))
        }
    }

    // MARK: Applied sets

    /// Whether a change set with this identifier was already applied here (or pushed from here).
    package func isApplied(setID: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM rollingsync_applied_sets WHERE set_id = ?)", arguments: [setID]) ?? false
        }
    }

    /// The identifiers of every change set applied here or pushed from here, oldest first.
    package func appliedSetIDs() throws -> [String] {
        try writer.read { db in
            try String.fetchAll(db, sql: "SELECT set_id FROM rollingsync_applied_sets ORDER BY maximum_clock, set_id")
        }
    }
}
