import SyncCore

/// One schema change of the synced tables (see `SchemaChange`), as `migrate`, `tables add` and
/// `sync` print it: a sentence for people, its parts for scripts.
struct SchemaChangeLine: Codable, Equatable {
    /// `columnAdded`, `columnDropped`, `triggersRestored` or `tableAdded`.
    var change: String
    var table: String
    var column: String?
    /// Rows logged as changes that the next sync publishes (added columns and tables).
    var publishedRows: Int?

    init(_ change: SchemaChange) {
        switch change {
        case .columnAdded(let table, let column, let publishedRows):
            self.init(change: "columnAdded", table: table, column: column, publishedRows: publishedRows)
        case .columnDropped(let table, let column):
            self.init(change: "columnDropped", table: table, column: column, publishedRows: nil)
        case .triggersRestored(let table):
            self.init(change: "triggersRestored", table: table, column: nil, publishedRows: nil)
        case .tableAdded(let table, let publishedRows):
            self.init(change: "tableAdded", table: table, column: nil, publishedRows: publishedRows)
        @unknown default:
            self.init(change: String(describing: change), table: "", column: nil, publishedRows: nil)
        }
    }

    init(change: String, table: String, column: String?, publishedRows: Int?) {
        self.change = change
        self.table = table
        self.column = column
        self.publishedRows = publishedRows
    }

    /// The change as people read it.
    var text: String {
        let rows = publishedRows ?? 0
        let counted = rows == 1 ? "1 row" : "\(rows) rows"
        switch change {
        case "columnAdded":
            return "\(table): column \(column ?? "") added"
                + (rows == 0 ? "" : "; \(counted) with a value other than its default, to push")
        case "columnDropped":
            return "\(table): column \(column ?? "") dropped; values other clients still send for it will be ignored"
        case "triggersRestored":
            return "\(table): its capture triggers were missing (a rebuild outside `rollsync migrate`?) and were restored; writes made meanwhile were not captured"
        case "tableAdded":
            return "\(table): now synced; its \(counted) to push as new rows"
        default:
            return "\(table): \(change)"
        }
    }
}
