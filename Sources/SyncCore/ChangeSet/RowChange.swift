import GRDB

/// One row's net change, as read from the local change log or decoded from a change set.
///
/// A change set holds at most one `RowChange` per row: successive local edits of a row between two
/// pushes are folded into one (the values are the row's current values, each column with the clock
/// of its latest edit).
package struct RowChange: Sendable, Equatable {
    /// What happened to the row.
    package enum Kind: UInt8, Sendable {
        /// The row was created; ``RowChange/columns`` holds every column except the key.
        case insert = 2
        /// Some columns changed; ``RowChange/columns`` holds only those.
        case update = 3
        /// The row was deleted; ``RowChange/columns`` is empty.
        case delete = 4
    }

    /// One column's new value and the clock of the edit that set it.
    package struct Column: Sendable, Equatable {
        /// The column name, as declared in the table.
        package var name: String
        /// The new value (any SQLite storage class, including NULL).
        package var value: DatabaseValue
        /// When the value was written.
        package var clock: HLCTimestamp

        /// Creates a column change.
        package init(name: String, value: DatabaseValue, clock: HLCTimestamp) {
            self.name = name
            self.value = value
            self.clock = clock
        }
    }

    /// What happened to the row.
    package var kind: Kind
    /// The synced table's name.
    package var table: String
    /// The row's row key (``TableKey``): its key value, its global identity where the key is local,
    /// or the composite form; never NULL.
    package var key: DatabaseValue
    /// The row's clock: the latest clock among ``columns``, or the time of the deletion.
    package var clock: HLCTimestamp
    /// The changed columns (never the key column); empty for a deletion.
    package var columns: [Column]

    /// Creates a row change. `clock` must not be older than any column's clock (encoders store
    /// column clocks as offsets below it and reject a column that is newer).
    package init(kind: Kind, table: String, key: DatabaseValue, clock: HLCTimestamp, columns: [Column] = []) {
        self.kind = kind
        self.table = table
        self.key = key
        self.clock = clock
        self.columns = columns
    }
}
