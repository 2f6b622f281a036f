extension String {
    /// The string as a quoted SQL identifier: wrapped in double quotes, embedded double quotes
    /// doubled (GRDB's `quotedDatabaseIdentifier` does not escape them), so any table or column
    /// name is safe to splice into generated SQL.
    var sqlIdentifier: String { quoted(by: "\"") }

    /// The string as a quoted SQL string literal: wrapped in single quotes, embedded single quotes
    /// doubled.
    var sqlLiteral: String { quoted(by: "'") }

    /// The string between two `quote`s, each `quote` in it doubled. Works on Unicode scalars, as
    /// SQLite reads the text: a quote followed by a combining mark is one `Character` to Swift,
    /// yet still a quote to SQLite.
    private func quoted(by quote: Unicode.Scalar) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(quote)
        for scalar in unicodeScalars {
            scalars.append(scalar)
            if scalar == quote { scalars.append(quote) }
        }
        scalars.append(quote)
        return String(scalars)
    }
}
