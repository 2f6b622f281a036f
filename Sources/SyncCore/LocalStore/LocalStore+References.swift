import GRDB

extension LocalStore {
    /// Applies the reference rule (``ReferenceSettlement``) to the unpushed local changes, before
    /// they are pushed: children of rows deleted here (which an application with foreign keys off
    /// leaves behind) and rows written here that refer to rows deleted here or elsewhere are
    /// settled as the schema says, so the pushed set never carries a dangling reference. With
    /// foreign keys on, SQLite's own `ON DELETE` actions usually did this already and nothing is
    /// left to do. The effects are local writes, pushed with the rest.
    /// - Returns: what the rule did (empty when nothing dangled).
    func settleReferencesOfPendingChanges() throws -> [ApplyReport.Warning] {
        try withForeignKeysOff { db in
            var warnings: [ApplyReport.Warning] = []
            try db.inTransaction(.immediate) {
                var settlement = try ReferenceSettlement(db: db, syncedTables: try Self.syncedTables(in: db))
                guard settlement.hasForeignKeys else { return .commit }
                var touched: [String: [DatabaseValue]] = [:]
                var deleted: [String: [DatabaseValue]] = [:]
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT DISTINCT t.name, c.row_key, c.op = \(LocalStoreSchema.deleteOperation) AS is_delete
                    FROM rollingsync_changes AS c JOIN rollingsync_tables AS t ON t.id = c.table_id
                    """)
                while let row = try rows.next() {
                    let table: String = row["name"]
                    if row["is_delete"] as Bool {
                        if settlement.isReferenced(table) { deleted[table, default: []].append(row["row_key"]) }
                    } else if settlement.hasReferences(from: table) {
                        touched[table, default: []].append(row["row_key"])
                    }
                }
                try settlement.settle(.rows(touched: touched, deleted: deleted))
                warnings = settlement.warnings
                return .commit
            }
            return warnings
        }
    }
}
