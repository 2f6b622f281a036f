import GRDB

extension StatementArguments {
    /// Arguments from values, through GRDB's initializer for existentials: its generic initializer
    /// reads each value through a key path, which dominated the cost of applying.
    init(values: [DatabaseValue]) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }
}
