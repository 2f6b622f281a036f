import Foundation

/// The logins and passwords of a netrc file (`~/.netrc`), the format curl and ftp read: the
/// tokens `machine NAME`, `default`, `login USER` and `password SECRET`, separated by blanks or
/// newlines.
///
/// The one netrc reader of the package: the WebDAV backend reads its password through it (and
/// `rollsync`, through the WebDAV configuration, to know whether to prompt), instead of libcurl's
/// own reader. As in libcurl 7.88, a token may be written in double quotes (with `\"`, `\\`, `\n`,
/// `\r` and `\t` escapes), a line whose first token starts with `#` is a comment, and a `macdef`
/// definition runs to the next empty line; other tokens (`account`) are skipped with their value.
package struct Netrc: Sendable {
    /// One entry's credentials.
    package struct Credentials: Sendable, Equatable {
        package var login: String?
        package var password: String?
    }

    /// The entries in file order; `machine == nil` for `default`.
    private var entries: [(machine: String?, credentials: Credentials)] = []

    /// Parses `text`.
    package init(parsing text: String) {
        var current: (machine: String?, credentials: Credentials)?
        var tokens = Self.tokens(of: text).makeIterator()
        while let token = tokens.next() {
            switch token {
            case "machine":
                if let entry = current { entries.append(entry) }
                current = (tokens.next() ?? "", Credentials())
            case "default":
                if let entry = current { entries.append(entry) }
                current = (nil, Credentials())
            case "login":
                current?.credentials.login = tokens.next()
            case "password":
                current?.credentials.password = tokens.next()
            default:
                _ = tokens.next()
            }
        }
        if let entry = current { entries.append(entry) }
    }

    /// Reads `file`, or `$HOME/.netrc` of `environment` when `file` is `nil`; `nil` if the file
    /// cannot be read (a missing netrc file is no error: there are simply no credentials).
    package static func load(file: String? = nil, environment: [String: String]) -> Netrc? {
        let path = file ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.netrc")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Netrc(parsing: text)
    }

    /// The first entry, in file order, for `host` (compared without regard to case) or `default`
    /// whose login is `login` or unset; any login matches when `login` is `nil`.
    package func credentials(for host: String, login: String? = nil) -> Credentials? {
        entries.first { entry in
            (entry.machine.map { $0.caseInsensitiveCompare(host) == .orderedSame } ?? true)
                && (login == nil || entry.credentials.login == nil || entry.credentials.login == login)
        }?.credentials
    }

    /// The file's tokens: blank-separated or double-quoted, without comment lines and `macdef`
    /// bodies.
    private static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var inMacro = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if inMacro {
                inMacro = !trimmed.isEmpty
                continue
            }
            if trimmed.hasPrefix("#") { continue }
            var scanner = Substring(line)
            while let token = nextToken(&scanner) {
                if token == "macdef" {
                    inMacro = true
                    break
                }
                tokens.append(token)
            }
        }
        return tokens
    }

    /// Removes and returns the next token of `line`, unquoting a quoted one.
    private static func nextToken(_ line: inout Substring) -> String? {
        line = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = line.first else { return nil }
        guard first == "\"" else {
            let token = line.prefix { $0 != " " && $0 != "\t" && $0 != "\r" }
            line = line.dropFirst(token.count)
            return String(token)
        }
        var token = ""
        var index = line.index(after: line.startIndex)
        while index < line.endIndex, line[index] != "\"" {
            var character = line[index]
            if character == "\\", line.index(after: index) < line.endIndex {
                index = line.index(after: index)
                switch line[index] {
                case "n": character = "\n"
                case "r": character = "\r"
                case "t": character = "\t"
                default: character = line[index]
                }
            }
            token.append(character)
            index = line.index(after: index)
        }
        line = index < line.endIndex ? line[line.index(after: index)...] : line[line.endIndex...]
        return token
    }
}
