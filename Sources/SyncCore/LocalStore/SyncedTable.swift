import GRDB

/// A table registered for synchronization: its changes are captured by triggers and it accepts
/// changes from other clients.
public struct SyncedTable: Sendable, Equatable {
    /// The table's name.
    public var name: String
    /// The primary-key columns, in the order of the `PRIMARY KEY` clause: one column whose values
    /// the app assigns, globally unique (e.g. a UUID); one integer column whose values each
    /// database assigns (`INTEGER PRIMARY KEY`), its rows then named by global identities
    /// (``LocalStore/globalIdentity(ofRowWithID:in:)``); several (a composite key, as a join
    /// table's `PRIMARY KEY (note_id, tag_id)`); or, for a table without a declared key, its rowid
    /// (`rowid`, or `_rowid_` or `oid` when a column takes that name).
    public var keyColumns: [String]
    /// The other stored columns, in declaration order (generated columns are not synchronized).
    public var columns: [String]
    /// The ``columns`` whose declared type lets them hold an integer and an equal real side by
    /// side (no type, `BLOB`, `NUMERIC`, `ANY` and other types of SQLite's BLOB or NUMERIC
    /// affinity rules; those with INTEGER, REAL or TEXT affinity convert one into the other or
    /// both into text): setting `1` to `1.0` there is a change, which `IS NOT` does not see.
    var looselyTypedColumns: Set<String> = []
    /// The ``keyColumns`` of TEXT affinity, where SQLite never stores a REAL (it stores numbers
    /// as text): their part of a composite row key needs no spelling of a REAL equal to an
    /// integer as that integer (``TableKey``). (INTEGER affinity would not do: SQLite keeps the
    /// REAL −2⁶³ a REAL there.)
    var keyColumnsWithoutIntegralReals: Set<String> = []
    /// RollingSync's internal number for the table (used in the change log and trigger names).
    var id: Int64
    /// True when a key column is not declared `NOT NULL` in a rowid table, where SQLite stores
    /// NULL keys: rows with a NULL in their key are not captured, published or replaced by a
    /// whole store.
    var keyMayBeNull = false
    /// True when the key is assigned by each database on its own: an integer key (an `INTEGER
    /// PRIMARY KEY`, with or without `AUTOINCREMENT`, or any other one-column key of integer
    /// affinity) or, in a table without a declared key, the rowid (``keyColumns`` then names it:
    /// `rowid`, or `_rowid_` or `oid` when a column takes that name). Such rows are named by their
    /// global identity (``RowIdentity``) everywhere RollingSync refers to a row.
    var keyIsLocal = false
    /// True when the table declares no key and ``keyColumns`` names its rowid, which `SELECT *`
    /// leaves out.
    var keyIsRowid = false
    /// Where the key is local in a table with a rowid, the rowid's other names no column takes
    /// (`rowid`, `_rowid_`, `oid`): an `UPDATE … SET rowid = …` changes the key under them.
    var rowidAliases: [String] = []
    /// Where the table has a rowid that its key is not (a key SQLite keeps in an index of its own,
    /// such as a UUID), the rowid's name no column takes (`rowid`, `_rowid_` or `oid`): the change
    /// log records it beside the key, so that a push reads its rows by rowid, in the order the
    /// table stores them, instead of through the key's index in random order. `nil` otherwise.
    var rowidName: String?
    /// The columns (key or not) that hold the local key of a synced table whose ``keyIsLocal``, by
    /// that table's id: the one-column foreign keys to such a table's key. Their values travel as
    /// the referenced rows' global identities. Filled by ``LocalStore/syncedTables(in:)``.
    var localReferences: [String: Int64] = [:]

    /// How the table's rows are named in the change log and change sets.
    var key: TableKey {
        TableKey(
            columns: keyColumns, identities: keyColumns.map { keyIsLocal ? id : localReferences[$0] }, isOwnLocalKey: keyIsLocal,
            holdIntegralReals: keyColumns.map { !keyColumnsWithoutIntegralReals.contains($0) }
        )
    }

    /// The table as ``inspect(_:in:)`` finds it in the schema, registered under `id` (its
    /// ``localReferences`` not filled).
    init(name: String, id: Int64, in db: Database) throws {
        let shape = try Self.inspect(name, in: db)
        self.init(
            name: name, keyColumns: shape.keyColumns, columns: shape.columns, id: id,
            keyMayBeNull: shape.keyMayBeNull, keyIsLocal: shape.keyIsLocal
        )
        keyIsRowid = shape.keyIsRowid
        rowidAliases = shape.rowidAliases
        rowidName = shape.rowidName
        looselyTypedColumns = shape.looselyTypedColumns
        keyColumnsWithoutIntegralReals = shape.keyColumnsWithoutIntegralReals
    }

    init(name: String, keyColumns: [String], columns: [String], id: Int64, keyMayBeNull: Bool = false, keyIsLocal: Bool = false) {
        self.name = name
        self.keyColumns = keyColumns
        self.columns = columns
        self.id = id
        self.keyMayBeNull = keyMayBeNull
        self.keyIsLocal = keyIsLocal
    }

    /// Fills the ``localReferences`` of `tables` (all the synced tables) from the schema's foreign
    /// keys. A table whose one-column key references a local key (a one-to-one table such as
    /// `profile(user_id INTEGER PRIMARY KEY REFERENCES user)`) names its rows by the referenced
    /// rows' identities (its key is then not local itself), and references to it follow them too.
    static func resolvingReferences(_ tables: [SyncedTable], in db: Database) throws -> [SyncedTable] {
        guard tables.contains(where: \.keyIsLocal) else { return tables }
        let keys = try ForeignKey.all(in: db).filter { $0.childColumns.count == 1 }
        let byName = Dictionary(tables.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        /// Whether `key` references the whole key of `parent`.
        func referencesKey(_ key: ForeignKey, of parent: SyncedTable) -> Bool {
            key.parentColumns.map { $0.lowercased() } == parent.keyColumns.map { $0.lowercased() }
        }
        // The identity table of each table's one-column key, when it is local or references one
        // (chains followed, at most as many steps as tables).
        var keyIdentity: [String: Int64] = [:]
        for table in tables where table.keyIsLocal { keyIdentity[table.name.lowercased()] = table.id }
        for _ in tables {
            var changed = false
            for key in keys where key.childTable.lowercased() != key.parentTable.lowercased() {
                guard let child = byName[key.childTable.lowercased()], child.keyColumns.count == 1,
                      child.keyColumns[0].lowercased() == key.childColumns[0].lowercased(),
                      let parent = byName[key.parentTable.lowercased()], referencesKey(key, of: parent),
                      let identity = keyIdentity[parent.name.lowercased()], keyIdentity[child.name.lowercased()] != identity
                else { continue }
                keyIdentity[child.name.lowercased()] = identity
                changed = true
            }
            if !changed { break }
        }
        return tables.map { table in
            var table = table
            if let identity = keyIdentity[table.name.lowercased()], identity != table.id {
                table.keyIsLocal = false
                table.localReferences[table.keyColumns[0]] = identity
            }
            for key in keys where key.childTable.lowercased() == table.name.lowercased() {
                guard let parent = byName[key.parentTable.lowercased()], referencesKey(key, of: parent),
                      let identity = keyIdentity[parent.name.lowercased()],
                      let column = (table.columns + table.keyColumns).first(where: { $0.lowercased() == key.childColumns[0].lowercased() })
                else { continue }
                if table.localReferences[column] == nil { table.localReferences[column] = identity }
            }
            return table
        }
    }

    /// `names` ordered so that a table comes after the tables its foreign keys reference (cycles
    /// broken arbitrarily, otherwise the given order): registering them in this order names the
    /// rows of a one-to-one table by its parent's identities from the start.
    package static func registrationOrder(_ names: [String], in db: Database) throws -> [String] {
        let keys = try ForeignKey.all(in: db)
        var ordered: [String] = []
        var visiting: Set<String> = []
        func visit(_ name: String) {
            let lowered = name.lowercased()
            guard !ordered.contains(where: { $0.lowercased() == lowered }), !visiting.contains(lowered) else { return }
            visiting.insert(lowered)
            for key in keys where key.childTable.lowercased() == lowered {
                if let parent = names.first(where: { $0.lowercased() == key.parentTable.lowercased() }) { visit(parent) }
            }
            ordered.append(name)
        }
        names.forEach(visit)
        return ordered
    }

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

    /// What ``inspect(_:in:)`` finds in the schema.
    struct Shape: Equatable {
        var keyColumns: [String]
        var columns: [String]
        var keyMayBeNull: Bool
        var keyIsLocal: Bool
        var keyIsRowid = false
        var rowidAliases: [String] = []
        var rowidName: String?
        var looselyTypedColumns: Set<String> = []
        var keyColumnsWithoutIntegralReals: Set<String> = []
    }

    /// A column's affinity, from its declared type by SQLite's rules (§3.1 of its data type
    /// documentation), applied in their order, to the type with its ASCII letters upper-cased
    /// (as SQLite compares; `ı` stays `ı`). A STRICT table's `ANY` comes out NUMERIC, and keeps
    /// every value as it is given.
    enum Affinity {
        case integer, text, blob, real, numeric

        init(declaredType: String) {
            let type = declaredType.asciiUppercased
            self = if type.contains("INT") {
                .integer
            } else if ["CHAR", "CLOB", "TEXT"].contains(where: type.contains) {
                .text
            } else if type.contains("BLOB") || type.isEmpty {
                .blob
            } else if ["REAL", "FLOA", "DOUB"].contains(where: type.contains) {
                .real
            } else {
                .numeric
            }
        }
    }

    /// Whether a column of declared type `type` may hold an integer and an equal real side by
    /// side: BLOB or NUMERIC affinity (NUMERIC keeps a real too large for an integer, and a STRICT
    /// table's `ANY` column keeps every value as it is given).
    static func isLooselyTyped(_ type: String) -> Bool {
        [.blob, .numeric].contains(Affinity(declaredType: type))
    }

    /// Whether a column of declared type `type` never holds a REAL equal to an integer: TEXT
    /// affinity stores numbers as text.
    static func neverHoldsIntegralReals(_ type: String) -> Bool {
        Affinity(declaredType: type) == .text
    }

    /// Reads a table's schema and checks that it can be synchronized. Every ordinary table can:
    /// - a one-column key of any declared type but an integer one (TEXT, BLOB, `VARCHAR(36)`,
    ///   `UUID`, `NUMERIC`, `REAL`…) is assigned by the app, globally unique (a UUID): rows are
    ///   named by its value;
    /// - a composite key (a join table's `PRIMARY KEY (note_id, tag_id)`), of any declared types,
    ///   in rowid and `WITHOUT ROWID` tables alike: rows are named by its values;
    /// - an integer key (`INTEGER PRIMARY KEY`, with or without `AUTOINCREMENT`, or any one-column
    ///   key of integer affinity), or no declared key at all (the rowid is the key): each database
    ///   assigns these keys on its own, so rows are named by a global identity (``keyIsLocal``,
    ///   see ``RowIdentity``) and keep the ids the app was given.
    ///
    /// A key column not declared `NOT NULL` is accepted (`keyMayBeNull`): SQLite lets a rowid table
    /// store NULL keys, which cannot be synchronized; such rows stay local.
    /// - Throws: ``LocalStoreError`` naming the table and the reason: missing table, view or virtual
    ///   table, RollingSync's or SQLite's own table, a table without a key whose columns hide its rowid.
    static func inspect(_ name: String, in db: Database) throws -> Shape {
        func refuse(_ why: String) -> LocalStoreError { LocalStoreError(.unsupportedTable, table: name, detail: why) }
        guard !name.lowercased().hasPrefix(LocalStoreSchema.prefix) else {
            throw refuse("names starting with \"\(LocalStoreSchema.prefix)\" are reserved for RollingSync's own tables")
        }
        guard !name.lowercased().hasPrefix("sqlite_") else {
            throw refuse("it is one of SQLite's own tables (sqlite_sequence, sqlite_stat1…), which SQLite keeps on each client")
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
        let columnRows = rows.filter { ($0["pk"] as Int) == 0 && ($0["hidden"] as Int) == 0 }
        let columns = columnRows.map { $0["name"] as String }
        let looselyTyped = Set(columnRows.filter { isLooselyTyped($0["type"]) }.map { $0["name"] as String })
        guard !keyRows.isEmpty else {
            // No declared key (never WITHOUT ROWID): the rowid, under a name no column takes.
            let taken = Set(rows.map { ($0["name"] as String).lowercased() })
            guard let rowid = ["rowid", "_rowid_", "oid"].first(where: { !taken.contains($0) }) else {
                throw refuse("it has no primary key, and columns named rowid, _rowid_ and oid hide its rowid; declare a primary key")
            }
            let aliases = ["rowid", "_rowid_", "oid"].filter { !taken.contains($0) && $0 != rowid }
            return Shape(
                keyColumns: [rowid], columns: columns, keyMayBeNull: false, keyIsLocal: true, keyIsRowid: true, rowidAliases: aliases,
                looselyTypedColumns: looselyTyped
            )
        }
        // SQLite's affinity rule 1: a declared type containing INT has integer affinity.
        let keyIsLocal = keyRows.count == 1 && Affinity(declaredType: keyRows[0]["type"]) == .integer
        // An INTEGER PRIMARY KEY is the rowid (never NULL) unless declared DESC, which SQLite then
        // keeps in an index of its own, as any other key.
        let keyHasIndex = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_index_list(?) WHERE origin = 'pk')", arguments: [name]) ?? false
        let isRowidAlias = !withoutRowid && keyRows.count == 1 && (keyRows[0]["type"] as String).asciiUppercased == "INTEGER" && !keyHasIndex
        let keyMayBeNull = !withoutRowid && keyRows.contains { ($0["notnull"] as Int) == 0 } && !isRowidAlias
        let taken = Set(rows.map { ($0["name"] as String).lowercased() })
        let aliases = keyIsLocal && !withoutRowid ? ["rowid", "_rowid_", "oid"].filter { !taken.contains($0) } : []
        return Shape(
            keyColumns: keyRows.map { $0["name"] as String }, columns: columns, keyMayBeNull: keyMayBeNull, keyIsLocal: keyIsLocal,
            rowidAliases: aliases,
            rowidName: withoutRowid || isRowidAlias ? nil : ["rowid", "_rowid_", "oid"].first { !taken.contains($0) },
            looselyTypedColumns: looselyTyped,
            keyColumnsWithoutIntegralReals: Set(keyRows.filter { neverHoldsIntegralReals($0["type"]) }.map { $0["name"] as String })
        )
    }
}

private extension String {
    /// The string with its ASCII letters upper-cased and nothing else changed, as SQLite folds
    /// case in identifiers and type names.
    var asciiUppercased: String {
        String(decoding: utf8.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 32 : $0 }, as: UTF8.self)
    }
}
