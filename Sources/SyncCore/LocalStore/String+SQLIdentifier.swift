extension String {
    /// The string as a quoted SQL identifier: wrapped in double quotes, embedded double quotes
    /// doubled (GRDB's `quotedDatabaseIdentifier` does not escape them), so any table or column
    /// name is safe to splice into generated SQL.
    var sqlIdentifier: String {
        "\"" + split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

extension String {
    /// The string as a quoted SQL string literal: wrapped in single quotes, embedded single quotes
    /// doubled.
    var sqlLiteral: String {
        "'" + split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }
}
