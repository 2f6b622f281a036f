import GRDB

/// Applies RollingSync's reference rule (Docs/Conflicts.md) inside a write transaction that runs
/// with `PRAGMA foreign_keys` off, so that no constraint can fail the transaction and every client
/// reaches the same result whether a child row arrives before or after its parent's deletion.
///
/// A child row whose reference names a missing parent row is *dangling*. It is settled only when
/// the parent is known to be **deleted**: for a reference to a synced table's key, the parent key
/// has a tombstone or an unpushed local deletion; for any other reference (to a table that is not
/// synced, or to a non-key column), a missing parent counts as deleted. A reference to a parent
/// that simply has not arrived yet (a set held back, a re-based store without this client's
/// unpushed rows) is left alone until the parent arrives. A deleted parent's children are settled
/// as the schema says, whatever the order in which the changes arrived:
/// - `ON DELETE CASCADE`: the child row is removed;
/// - `ON DELETE SET NULL`: the reference is set to NULL;
/// - `ON DELETE SET DEFAULT`: the reference takes its default value, and is settled again (to
///   NULL, or removal) if the default names no existing parent;
/// - `NO ACTION` / `RESTRICT` (the default): the reference is set to NULL where every referencing
///   column accepts NULL (the child row and its data survive; only the link to a row somebody
///   deleted is lost); otherwise the child row is removed.
/// Where SET NULL meets a `NOT NULL` column, the child row is removed as well.
///
/// Every effect is an ordinary local write made with the capture triggers active, so it is pushed
/// with a new clock like an edit of the application: the other clients converge on it by the usual
/// rules (a removal is a deletion, and deletions win). A removed row's last values are saved in
/// `rollingsync_removed_rows` (see ``RemovedRow``) and every effect is reported as an
/// ``ApplyReport/Warning``. A removal deletes that row's own children in turn (chains, self
/// references), by the same rule.
///
/// Child tables that are not synced are settled too (their effects are not captured, having no
/// triggers), except `WITHOUT ROWID` tables that are not synced, which have no row identity to act
/// on and are left as they are.
struct ReferenceSettlement {
    /// Which dangling rows to look at.
    enum Scope {
        /// Every row of every table (after a whole-store install).
        case everything
        /// Rows written by an apply (`touched`, by table) and children of deleted rows (`deleted`,
        /// keys of synced tables by table), and what their settlement removes in turn.
        case rows(touched: [String: [DatabaseValue]], deleted: [String: [DatabaseValue]])
    }

    private let db: Database
    private let keys: [ForeignKey]
    /// Synced tables by lowercased name.
    private let synced: [String: SyncedTable]
    /// Lowercased names of the tables without a rowid.
    private let withoutRowid: Set<String>
    /// What the settlement did, in order.
    private(set) var warnings: [ApplyReport.Warning] = []

    /// Reads the schema's foreign keys.
    init(db: Database, syncedTables: [SyncedTable]) throws {
        self.db = db
        keys = try ForeignKey.all(in: db)
        synced = Dictionary(syncedTables.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        withoutRowid = Set(try String.fetchAll(
            db, sql: "SELECT lower(name) FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND wr = 1"
        ))
    }

    /// Whether the schema has any foreign key at all.
    var hasForeignKeys: Bool { !keys.isEmpty }

    /// Whether rows of `table` can reference other rows (the applier records the rows it writes
    /// only for such tables).
    func hasReferences(from table: String) -> Bool {
        keys.contains { $0.childTable.lowercased() == table.lowercased() }
    }

    /// The one-column foreign keys that reference the key of `table` (a table whose key is local).
    func keys(referencing table: SyncedTable) -> [ForeignKey] {
        keys.filter { key in
            key.parentTable.lowercased() == table.name.lowercased() && key.childColumns.count == 1
                && key.parentColumns.map { $0.lowercased() } == table.keyColumns.map { $0.lowercased() }
        }
    }

    /// Rewrites the references to the local id `from` of `table` to `to` in every table that
    /// references it, before the identity at `from` moves to `to` (see ``RowIdentity``), so that
    /// they keep naming its row: a reserved identity whose row has arrived, or a row that is not
    /// here held under a reserved id. The global values do not change, so nothing is captured.
    /// With a trigger guard, the rows of a synced child table move one at a time, each let through
    /// the guard, so the app's triggers run; its rows whose key is NULL (local only, which the
    /// guard lets through) move together.
    func moveReferences(to table: SyncedTable, from: Int64, to: Int64, guardedBy triggerGuard: AppTriggerGuard?) throws {
        for key in keys(referencing: table) {
            let column = key.childColumns[0].sqlIdentifier
            let child = key.childTable.sqlIdentifier
            let moveAll = "UPDATE main.\(child) SET \(column) = ? WHERE \(column) = ?"
            guard let triggerGuard, let childTable = synced[key.childTable.lowercased()] else {
                try db.execute(sql: moveAll, arguments: [to, from])
                continue
            }
            let present = childTable.key.isPresent()
            let rowKeys = try DatabaseValue.fetchAll(
                db, sql: "SELECT \(childTable.key.value()) FROM main.\(child) WHERE \(column) = ? AND \(present)", arguments: [from]
            )
            for rowKey in rowKeys {
                try triggerGuard.permit(childTable, key: rowKey)
                try db.execute(
                    sql: "UPDATE main.\(child) SET \(column) = ? WHERE \(childTable.key.matches())",
                    arguments: StatementArguments(values: [to.databaseValue] + (try childTable.key.components(of: rowKey)))
                )
            }
            if childTable.keyMayBeNull {
                try db.execute(sql: moveAll + " AND NOT (\(present))", arguments: [to, from])
            }
        }
    }

    /// Whether rows of `table` can be referenced (the applier records deleted keys only for such tables).
    func isReferenced(_ table: String) -> Bool {
        keys.contains { $0.parentTable.lowercased() == table.lowercased() }
    }

    /// Settles the dangling references in `scope`, with the capture triggers active, until no
    /// removal leaves another dangling reference.
    /// - Throws: SQLite errors; the caller rolls the transaction back.
    mutating func settle(_ scope: Scope) throws {
        guard !keys.isEmpty else { return }
        var touched: [String: [DatabaseValue]] = [:]
        var deleted: [String: [DatabaseValue]] = [:]
        var everything = false
        switch scope {
        case .everything: everything = true
        case .rows(let rowsTouched, let rowsDeleted):
            touched = rowsTouched.filter { !$0.value.isEmpty }
            deleted = rowsDeleted.filter { !$0.value.isEmpty }
            guard !touched.isEmpty || !deleted.isEmpty else { return }
        }
        try ChangeLog.withCaptureEnabled(db) {
            try db.execute(sql: """
                DROP TABLE IF EXISTS temp.rollingsync_scope;
                CREATE TEMP TABLE rollingsync_scope (
                    kind INTEGER NOT NULL, table_name TEXT NOT NULL, row_key NOT NULL\(componentColumns.map { ", \($0)" }.joined()),
                    PRIMARY KEY (kind, table_name, row_key)) WITHOUT ROWID;
                DROP TABLE IF EXISTS temp.rollingsync_deleted_keys;
                CREATE TEMP TABLE rollingsync_deleted_keys (
                    table_id INTEGER NOT NULL, row_key NOT NULL, PRIMARY KEY (table_id, row_key)) WITHOUT ROWID;
                INSERT OR IGNORE INTO temp.rollingsync_deleted_keys
                    SELECT table_id, row_key FROM rollingsync_changes WHERE op = \(LocalStoreSchema.deleteOperation);
                """)
            defer {
                try? db.execute(sql: """
                    DROP TABLE IF EXISTS temp.rollingsync_scope;
                    DROP TABLE IF EXISTS temp.rollingsync_deleted_keys;
                    """)
            }
            var deletedTables = Set(deleted.keys.map { $0.lowercased() })
            while true {
                try fillScope(touched: touched, deleted: deleted)
                var removed: [String: [DatabaseValue]] = [:]
                var removedTables: Set<String> = []
                for key in keys {
                    try settle(key, everything: everything, touched: touched, deletedTables: deletedTables, removed: &removed, removedTables: &removedTables)
                }
                guard !removedTables.isEmpty else { return }
                everything = false
                touched = [:]
                deleted = removed
                deletedTables = removedTables
            }
        }
    }

    private func fillScope(touched: [String: [DatabaseValue]], deleted: [String: [DatabaseValue]]) throws {
        try db.execute(sql: "DELETE FROM temp.rollingsync_scope")
        let columns = (["kind", "table_name", "row_key"] + componentColumns).joined(separator: ", ")
        let insert = try db.makeStatement(
            sql: "INSERT OR IGNORE INTO temp.rollingsync_scope (\(columns)) VALUES (\(Array(repeating: "?", count: 3 + componentColumns.count).joined(separator: ", ")))"
        )
        let width = componentColumns.count
        var values: [DatabaseValue] = []
        values.reserveCapacity(3 + width)
        for (kind, rows) in [(0, touched), (1, deleted)] {
            for (table, keys) in rows {
                let name = table.lowercased()
                let tableKey = synced[name]?.key
                let prefix = [kind.databaseValue, name.databaseValue]
                for key in keys {
                    values.removeAll(keepingCapacity: true)
                    values += prefix
                    values.append(key)
                    // A composite key's values too, so its rows are found through their key's index.
                    if let tableKey, tableKey.isComposite { values += try tableKey.components(of: key) }
                    values += repeatElement(DatabaseValue.null, count: 3 + width - values.count)
                    try insert.execute(binding: values)
                }
            }
        }
    }

    /// The scope's columns for the values of composite keys (`k0`, `k1`…), as many as the widest.
    private var componentColumns: [String] {
        let width = synced.values.map { $0.key.isComposite ? $0.keyColumns.count : 0 }.max() ?? 0
        return (0..<width).map { "k\($0)" }
    }

    /// The condition that the row `c` whose key is made of `columns` (qualified, a composite key's
    /// in its order; `identity` its row key; `identities` the identity tables of its columns, see
    /// ``TableKey``) is in the scope of `kind` for `table`. The scope's keys are translated to
    /// local values, so the condition goes through an index on `columns`.
    private func inScope(_ identity: String, columns: [String]?, identities: [Int64?], kind: Int, table: String) -> String {
        let selection = "FROM temp.rollingsync_scope WHERE kind = \(kind) AND table_name = \(table.sqlLiteral)"
        guard let columns else { return "\(identity) IN (SELECT row_key \(selection))" }
        func local(_ component: String, _ index: Int) -> String {
            guard index < identities.count, let table = identities[index] else { return component }
            return "coalesce(\(RowIdentity.local(ofGlobal: component, tableID: table)), \(component))"
        }
        guard columns.count > 1 else { return "\(columns[0]) IN (SELECT \(local("row_key", 0)) \(selection))" }
        let components = columns.indices.map { local("k\($0)", $0) }.joined(separator: ", ")
        return "(\(columns.joined(separator: ", "))) IN (SELECT \(components) \(selection))"
    }

    /// Settles the dangling rows of one foreign key within the scope.
    private mutating func settle(
        _ key: ForeignKey, everything: Bool, touched: [String: [DatabaseValue]], deletedTables: Set<String>,
        removed: inout [String: [DatabaseValue]], removedTables: inout Set<String>
    ) throws {
        let child = key.childTable.lowercased()
        let parent = key.parentTable.lowercased()
        let childTable = synced[child]
        if childTable == nil && withoutRowid.contains(child) { return }
        let identity = childTable.map { $0.key.value(of: "c") } ?? "c.rowid"
        let parentTable = synced[parent]
        let reference = parentTable.flatMap { Self.referencedKey(of: key, parent: $0) }
        var conditions = [key.danglingCondition]
        if !everything {
            var scope: [String] = []
            if touched.keys.contains(where: { $0.lowercased() == child }) {
                let columns = childTable.map { table in table.keyColumns.map { "c.\($0.sqlIdentifier)" } }
                scope.append(inScope(identity, columns: columns, identities: childTable?.key.identities ?? [], kind: 0, table: child))
            }
            if deletedTables.contains(parent) {
                if let reference {
                    let columns = parentTable.flatMap { Self.referencingColumns(of: key, parent: $0) }?.map { "c.\($0.sqlIdentifier)" }
                    scope.append(inScope(reference, columns: columns, identities: parentTable?.key.identities ?? [], kind: 1, table: parent))
                } else {
                    scope.append("1")
                }
            }
            guard !scope.isEmpty else { return }
            conditions.append("(\(scope.joined(separator: " OR ")))")
        }
        let parentDeleted: String
        if let parentTable, let reference {
            parentDeleted = """
                EXISTS (SELECT 1 FROM main.rollingsync_tombstones WHERE table_id = \(parentTable.id) AND row_key = \(reference))
                OR EXISTS (SELECT 1 FROM temp.rollingsync_deleted_keys WHERE table_id = \(parentTable.id) AND row_key = \(reference))
                """
        } else {
            parentDeleted = "1"
        }
        let dangling = try DatabaseValue.fetchAll(
            db,
            sql: """
                SELECT \(identity) FROM main.\(key.childTable.sqlIdentifier) AS c
                WHERE \(conditions.joined(separator: " AND ")) AND (\(parentDeleted))
                """
        )
        for id in dangling {
            let reportedKey = childTable == nil ? DatabaseValue.null : id
            switch key.onDelete {
            case .cascade:
                try remove(id, of: key, reportedKey: reportedKey, removed: &removed, removedTables: &removedTables)
            case .setDefault where key.childDefaults.allSatisfy({ $0 != nil }):
                try assign(key.childDefaults.map { "(\($0 ?? "NULL"))" }, to: id, of: key)
                if try isDangling(id, of: key) {
                    try clearOrRemove(id, of: key, reportedKey: reportedKey, removed: &removed, removedTables: &removedTables)
                } else {
                    warnings.append(.referenceCleared(table: key.childTable, key: reportedKey, columns: key.childColumns, parentTable: key.parentTable))
                }
            case .setNull, .setDefault, .noAction:
                try clearOrRemove(id, of: key, reportedKey: reportedKey, removed: &removed, removedTables: &removedTables)
            }
        }
    }

    private mutating func clearOrRemove(
        _ id: DatabaseValue, of key: ForeignKey, reportedKey: DatabaseValue,
        removed: inout [String: [DatabaseValue]], removedTables: inout Set<String>
    ) throws {
        if key.childColumnsNullable {
            try assign(key.childColumns.map { _ in "NULL" }, to: id, of: key)
            warnings.append(.referenceCleared(table: key.childTable, key: reportedKey, columns: key.childColumns, parentTable: key.parentTable))
        } else {
            try remove(id, of: key, reportedKey: reportedKey, removed: &removed, removedTables: &removedTables)
        }
    }

    /// The SQL expression, on the child row `c`, of the row key that `key` references, when it
    /// references the whole key of the synced `parent` (its columns in any order): the key's
    /// columns taken from the child's referencing columns; `nil` for a reference to other columns.
    private static func referencedKey(of key: ForeignKey, parent: SyncedTable) -> String? {
        referencingColumns(of: key, parent: parent).map { TableKey(columns: $0, identities: parent.key.identities).value(of: "c") }
    }

    /// The child's columns of `key` in the order of the synced `parent`'s key columns, when `key`
    /// references the parent's whole key; `nil` otherwise.
    private static func referencingColumns(of key: ForeignKey, parent: SyncedTable) -> [String]? {
        let referenced = key.parentColumns.map { $0.lowercased() }
        guard referenced.count == parent.keyColumns.count, Set(referenced) == Set(parent.keyColumns.map { $0.lowercased() }) else {
            return nil
        }
        return parent.keyColumns.compactMap { column in
            referenced.firstIndex(of: column.lowercased()).map { key.childColumns[$0] }
        }
    }

    /// The condition that selects the child row `id` of `key` (qualified by `row`), and its
    /// arguments: through its key in a synced table, its rowid in another.
    private func selecting(_ id: DatabaseValue, of key: ForeignKey, in row: String? = nil) throws -> (condition: String, arguments: [DatabaseValue]) {
        guard let table = synced[key.childTable.lowercased()] else {
            return ("\(row.map { "\($0)." } ?? "")rowid = ?", [id])
        }
        return (table.key.matches(in: row), try table.key.components(of: id))
    }

    private func assign(_ expressions: [String], to id: DatabaseValue, of key: ForeignKey) throws {
        let assignments = zip(key.childColumns, expressions).map { "\($0.sqlIdentifier) = \($1)" }.joined(separator: ", ")
        let row = try selecting(id, of: key)
        try db.execute(
            sql: "UPDATE main.\(key.childTable.sqlIdentifier) SET \(assignments) WHERE \(row.condition)",
            arguments: StatementArguments(values: row.arguments)
        )
    }

    private func isDangling(_ id: DatabaseValue, of key: ForeignKey) throws -> Bool {
        let row = try selecting(id, of: key, in: "c")
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM main.\(key.childTable.sqlIdentifier) AS c
                WHERE \(row.condition) AND \(key.danglingCondition))
                """,
            arguments: StatementArguments(values: row.arguments)
        ) ?? false
    }

    /// Saves the row's values in `rollingsync_removed_rows`, deletes it (captured when its table is
    /// synced) and schedules its own children for the next round.
    private mutating func remove(
        _ id: DatabaseValue, of key: ForeignKey, reportedKey: DatabaseValue,
        removed: inout [String: [DatabaseValue]], removedTables: inout Set<String>
    ) throws {
        let reason = "its reference (\(key.childColumns.joined(separator: ", "))) names a deleted row of \(key.parentTable)"
        let row = try selecting(id, of: key)
        guard try RemovedRow.remove(table: key.childTable, matching: row.condition, row.arguments, key: reportedKey, reason: reason, in: db) else {
            return
        }
        warnings.append(.rowRemovedWithDeletedParent(table: key.childTable, key: reportedKey, parentTable: key.parentTable))
        let table = key.childTable.lowercased()
        removedTables.insert(table)
        if let syncedTable = synced[table] {
            removed[table, default: []].append(id)
            try db.execute(
                sql: "INSERT OR IGNORE INTO temp.rollingsync_deleted_keys (table_id, row_key) VALUES (?, ?)",
                arguments: [syncedTable.id, id]
            )
        }
    }
}
