import GRDB

/// One foreign-key constraint of the application's schema, as SQLite reports it
/// (`pragma_foreign_key_list`), with what RollingSync needs to apply its reference rule (see
/// ``ReferenceSettlement``).
struct ForeignKey: Sendable, Equatable {
    /// What the schema says happens to a child row when its parent is deleted.
    enum DeleteAction: Sendable, Equatable {
        case cascade
        case setNull
        case setDefault
        /// `NO ACTION` (the default when the schema says nothing) and `RESTRICT`.
        case noAction
    }

    /// The referencing table.
    var childTable: String
    /// The referencing columns, in constraint order.
    var childColumns: [String]
    /// Whether every referencing column accepts NULL.
    var childColumnsNullable: Bool
    /// The default-value expressions of the referencing columns (`nil` where there is none).
    var childDefaults: [String?]
    /// The referenced table.
    var parentTable: String
    /// The referenced columns (the parent's primary key when the schema names none).
    var parentColumns: [String]
    var onDelete: DeleteAction

    /// Every foreign key of every table of the main schema except RollingSync's own and SQLite's.
    static func all(in db: Database) throws -> [ForeignKey] {
        let tables = try String.fetchAll(db, sql: """
            SELECT name FROM pragma_table_list
            WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name NOT LIKE 'rollingsync\\_%' ESCAPE '\\'
            ORDER BY name
            """)
        var keys: [ForeignKey] = []
        for table in tables {
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT id, seq, \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq",
                arguments: [table]
            )
            guard !rows.isEmpty else { continue }
            let columns = Dictionary(
                try Row.fetchAll(db, sql: "SELECT name, \"notnull\", dflt_value FROM pragma_table_info(?)", arguments: [table])
                    .map { (($0["name"] as String).lowercased(), $0) },
                uniquingKeysWith: { first, _ in first }
            )
            for constraint in Dictionary(grouping: rows, by: { $0["id"] as Int }).sorted(by: { $0.key < $1.key }).map(\.value) {
                let parent: String = constraint[0]["table"]
                let childColumns = constraint.map { $0["from"] as String }
                var parentColumns = constraint.compactMap { $0["to"] as String? }
                if parentColumns.count != childColumns.count {
                    parentColumns = try String.fetchAll(
                        db, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", arguments: [parent]
                    )
                }
                let info = childColumns.map { columns[$0.lowercased()] }
                keys.append(ForeignKey(
                    childTable: table,
                    childColumns: childColumns,
                    childColumnsNullable: info.allSatisfy { ($0?["notnull"] as Int?) == 0 },
                    childDefaults: info.map { $0?["dflt_value"] as String? },
                    parentTable: parent,
                    parentColumns: parentColumns,
                    onDelete: DeleteAction(sqlite: constraint[0]["on_delete"])
                ))
            }
        }
        return keys
    }

    /// The SQL condition (on the child row aliased `c`) that the reference is set and names no
    /// existing parent row: SQLite's own definition of a violation (a NULL in any referencing
    /// column means no reference).
    var danglingCondition: String {
        let set = childColumns.map { "c.\($0.sqlIdentifier) IS NOT NULL" }.joined(separator: " AND ")
        let match = zip(parentColumns, childColumns)
            .map { "p.\($0.sqlIdentifier) = c.\($1.sqlIdentifier)" }
            .joined(separator: " AND ")
        return "\(set) AND NOT EXISTS (SELECT 1 FROM main.\(parentTable.sqlIdentifier) AS p WHERE \(match))"
    }
}

extension ForeignKey.DeleteAction {
    init(sqlite text: String) {
        switch text.uppercased() {
        case "CASCADE": self = .cascade
        case "SET NULL": self = .setNull
        case "SET DEFAULT": self = .setDefault
        default: self = .noAction
        }
    }
}
