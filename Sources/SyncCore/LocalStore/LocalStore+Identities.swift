import GRDB

extension LocalStore {
    /// The global identity of the row whose id is `id` in `table`, a synced table whose key each
    /// database assigns (an integer key, or the rowid of a table without a declared key): the name
    /// every client knows the row by, whatever id it has there (see Docs/Conflicts.md, "Integer
    /// keys"); `rollsync log --key` takes it. `nil` when no row has that id here (never had one, or
    /// the table's keys are the app's own values, which name their rows themselves).
    /// - Throws: ``LocalStoreError`` when `table` is not synced.
    public func globalIdentity(ofRowWithID id: Int64, in table: String) throws -> String? {
        try writer.read { db in
            let table = try Self.syncedTable(table, in: db)
            guard table.keyIsLocal else { return nil }
            return try String.fetchOne(db, sql: "SELECT \(RowIdentity.global(ofLocal: "?", tableID: table.id))", arguments: [id])
        }
    }

    /// The id here of the row of `table` whose global identity is `identity` (see
    /// ``globalIdentity(ofRowWithID:in:)``), or `nil` when this database has no such row.
    /// - Throws: ``LocalStoreError`` when `table` is not synced.
    public func rowID(ofGlobalIdentity identity: String, in table: String) throws -> Int64? {
        try writer.read { db in
            let table = try Self.syncedTable(table, in: db)
            guard table.keyIsLocal else { return nil }
            let key = table.keyColumns[0].sqlIdentifier
            return try Int64.fetchOne(
                db,
                sql: "SELECT \(key) FROM main.\(table.name.sqlIdentifier) WHERE \(key) = \(RowIdentity.local(ofGlobal: "?", tableID: table.id))",
                arguments: [identity]
            )
        }
    }
}
