import GRDB

/// A table registered for synchronization: its changes are captured by triggers and it accepts
/// changes from other clients.
public struct SyncedTable: Sendable, Equatable {
    /// The table's name.
    public var name: String
    /// The primary-key columns, in the order of the `PRIMARY KEY` clause: one column whose values
    /// the app assigns, globally unique (e.g. a UUID), or several (a composite key, as a join
    /// table's `PRIMARY KEY (note_id, tag_id)`).
    public var keyColumns: [String]
    /// The other stored columns, in declaration order (generated columns are not synchronized).
    public var columns: [String]
    /// RollingSync's internal number for the table (used in the change log and trigger names).
    var id: Int64
    /// True when a key column is not declared `NOT NULL` in a rowid table, where SQLite stores
    /// NULL keys: rows with a NULL in their key are not captured, published or replaced by a
    /// whole store.
    var keyMayBeNull = false

    /// How the table's rows are named in the change log and change sets.
    var key: TableKey { TableKey(columns: keyColumns) }

    /// Why a table of this `pragma_table_list` type cannot be synchronized (`nil` for an ordinary
    /// table): views, virtual tables (FTS, R*Tree…) and their shadow tables are derived from other
    /// tables, which are the ones to synchronize.
    package static func refusal(ofTableType type: String) -> String? {
        switch type {
        case "table": nil
        case "view": "it is a view; only tables can be synchronized"
        case "shadow":
            """
            it is a shadow table, where SQLite keeps a virtual table's index; synchronize the tables the \
            virtual table is built from
            """
        default:
            """
            it is a virtual table (a full-text or spatial index the app maintains from its tables, or another \
            module's table); synchronize the tables it is built from: the app's triggers keep it current on \
            every client
            """
        }
    }

    /// Reads a table's schema and checks that it can be synchronized.
    ///
    /// A synced table must have a primary key whose values the app assigns, so that keys created
    /// independently on different clients never collide:
    /// - one column of any declared type but an integer one (TEXT, BLOB, `VARCHAR(36)`, `UUID`,
    ///   `STRING`, `NUMERIC`, `REAL`…); keys are compared by value. Integer keys are refused for
    ///   now: an `INTEGER PRIMARY KEY` is the rowid, assigned per database, and other integer keys
    ///   are usually counters too;
    /// - or several columns of any declared types (a composite key, as in a join table), in rowid
    ///   and `WITHOUT ROWID` tables alike.
    ///
    /// A key column not declared `NOT NULL` is accepted (`keyMayBeNull`): SQLite lets a rowid table
    /// store NULL keys, which cannot be synchronized; such rows stay local.
    /// - Throws: ``LocalStoreError`` naming the table and the reason: missing table, view or virtual
    ///   table, RollingSync's own table, no primary key, integer key.
    static func inspect(_ name: String, in db: Database) throws -> (keyColumns: [String], columns: [String], keyMayBeNull: Bool) {
        func refuse(_ why: String) -> LocalStoreError { LocalStoreError(.unsupportedTable, table: name, detail: why) }
        guard !name.lowercased().hasPrefix(LocalStoreSchema.prefix) else {
            throw refuse("names starting with \"\(LocalStoreSchema.prefix)\" are reserved for RollingSync's own tables")
        }
        let listing = try Row.fetchOne(
            db,
            sql: "SELECT type, wr FROM pragma_table_list WHERE schema = 'main' AND name = ? COLLATE NOCASE",
            arguments: [name]
        )
        guard let listing else { throw LocalStoreError(.noSuchTable, table: name) }
        if let reason = refusal(ofTableType: listing["type"]) { throw refuse(reason) }
        let withoutRowid = (listing["wr"] as Int) == 1
        let rows = try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?)", arguments: [name])
        let keyRows = rows.filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }
        guard let keyRow = keyRows.first else {
            throw refuse("it has no primary key; add a globally unique TEXT (e.g. UUID) or BLOB primary key column")
        }
        if keyRows.count == 1 {
            let keyColumn: String = keyRow["name"]
            let declaredType = (keyRow["type"] as String).uppercased()
            if declaredType == "INTEGER" && !withoutRowid {
                throw refuse("""
                    its key \(keyColumn) is an INTEGER PRIMARY KEY, an alias of the rowid: rowids are assigned per \
                    database and collide between clients; use a TEXT (UUID) or BLOB key
                    """)
            }
            // SQLite's affinity rule 1: a declared type containing INT has integer affinity.
            guard !declaredType.contains("INT") else {
                throw refuse("""
                    its key \(keyColumn) has type \(declaredType) (integer affinity): integer keys are usually counters \
                    assigned per database, which collide between clients; use a TEXT (UUID) or BLOB key
                    """)
            }
        }
        let keyMayBeNull = !withoutRowid && keyRows.contains { ($0["notnull"] as Int) == 0 }
        let columns = rows
            .filter { ($0["pk"] as Int) == 0 && ($0["hidden"] as Int) == 0 }
            .map { $0["name"] as String }
        return (keyRows.map { $0["name"] as String }, columns, keyMayBeNull)
    }
}
