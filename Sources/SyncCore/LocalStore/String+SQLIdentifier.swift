import Foundation

extension String {
    /// The string as a quoted SQL identifier: wrapped in double quotes, embedded double quotes
    /// doubled (GRDB's `quotedDatabaseIdentifier` does not escape them), so any table or column
    /// name is safe to splice into generated SQL.
    var sqlIdentifier: String {
        "\"" + (contains("\"") ? replacingOccurrences(of: "\"", with: "\"\"") : self) + "\""
    }
}

extension String {
    /// The string as a quoted SQL string literal: wrapped in single quotes, embedded single quotes
    /// doubled.
    var sqlLiteral: String {
        "'" + (contains("'") ? replacingOccurrences(of: "'", with: "''") : self) + "'"
    }
}
