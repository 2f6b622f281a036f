import Foundation

/// The logins and passwords of a netrc file (`~/.netrc`), the format curl and ftp read: the
/// tokens `machine NAME`, `default`, `login USER` and `password SECRET`.
///
/// The one netrc reader of the package: the WebDAV backend reads its password through it (and
/// `rollsync`, through the WebDAV configuration, to know whether to prompt), instead of libcurl's
/// own reader. It follows libcurl 7.88's reader rule for rule:
/// - lines end at `\n` (a `\r` before it is white space); tokens are separated by blanks, and a
///   token may be written in double quotes with `\"`, `\\`, `\n`, `\r` and `\t` escapes (an
///   unterminated quote or a trailing `\` makes the file malformed);
/// - a token starting with `#` ends its line (the rest is a comment);
/// - keywords are recognized without regard to case, and so are host names;
/// - `macdef` (between entries) starts a macro whose body runs to the next empty line; other
///   tokens (`account` and its value) are ignored one by one;
/// - the entries are read in order, and the first `machine` entry for the host, or `default`,
///   decides. Without a login asked for, its login and password are taken. With a login asked
///   for, its password is taken if its login is that one or it has none; an entry of the same
///   host further down is taken only if its login is that one.
package struct Netrc: Sendable {
    /// One entry's credentials.
    package struct Credentials: Sendable, Equatable {
        package var login: String?
        package var password: String?

        package init(login: String?, password: String?) {
            self.login = login
            self.password = password
        }
    }

    /// A netrc file that libcurl would refuse too: an unterminated quoted token.
    package struct MalformedFile: Error, Sendable, Equatable, CustomStringConvertible {
        /// The 1-based line.
        package var line: Int

        package init(line: Int) {
            self.line = line
        }
        package var description: String { "the netrc file is malformed (an unterminated quoted token on line \(line))" }
    }

    /// The file's lines, as bytes, without their `\n`.
    private let lines: [ArraySlice<UInt8>]

    /// Keeps `text` to read; nothing is checked until credentials are asked for (as libcurl,
    /// which never reads a macro's body).
    package init(parsing text: String) {
        lines = Array(text.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    }

    /// Reads `file`, or `$HOME/.netrc` of `environment` when `file` is `nil`; `nil` if the file
    /// cannot be read (a missing netrc file is no error: there are simply no credentials).
    package static func load(file: String? = nil, environment: [String: String]) -> Netrc? {
        let path = file ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.netrc")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Netrc(parsing: text)
    }

    /// The credentials for `host` (see the type's rules), `nil` if no `machine` entry of `host`
    /// and no `default` entry comes first.
    /// - Throws: ``MalformedFile`` where libcurl fails the request the same way.
    package func credentials(for host: String, login wanted: String? = nil) throws(MalformedFile) -> Credentials? {
        enum State { case nothing, hostFound, hostValid, macro }
        var state = State.nothing
        var found = false
        var login = wanted
        var password: String?
        var expectingLogin = false
        var expectingPassword = false
        var ourLogin = true
        for (number, line) in lines.enumerated() {
            if state == .macro {
                guard line.isEmpty || line.first == UInt8(ascii: "\r") else { continue }
                state = .nothing
            }
            var rest = line[...]
            while let token = try Self.nextToken(&rest, line: number + 1) {
                if let login, !login.isEmpty, let password, !password.isEmpty {
                    return Credentials(login: login, password: password)
                }
                switch state {
                case .nothing:
                    if token.lowercased() == "macdef" {
                        state = .macro
                    } else if token.lowercased() == "machine" {
                        state = .hostFound
                    } else if token.lowercased() == "default" {
                        state = .hostValid
                        found = true
                    }
                case .macro:
                    if token.isEmpty { state = .nothing }
                case .hostFound:
                    if token.caseInsensitiveCompare(host) == .orderedSame {
                        state = .hostValid
                        found = true
                    } else {
                        state = .nothing
                    }
                case .hostValid:
                    if expectingLogin {
                        if let wanted, !wanted.isEmpty { ourLogin = token == wanted } else { login = token }
                        expectingLogin = false
                    } else if expectingPassword {
                        if ourLogin || wanted?.isEmpty != false { password = token }
                        expectingPassword = false
                    } else if token.lowercased() == "login" {
                        expectingLogin = true
                    } else if token.lowercased() == "password" {
                        expectingPassword = true
                    } else if token.lowercased() == "machine" {
                        state = .hostFound
                        ourLogin = false
                    }
                }
            }
        }
        guard found else { return nil }
        return Credentials(login: login, password: password)
    }

    /// Removes and returns the next token of `line`; `nil` at its end or at a comment.
    private static func nextToken(_ line: inout ArraySlice<UInt8>, line number: Int) throws(MalformedFile) -> String? {
        line = line.drop(while: isSpace)
        guard let first = line.first, first != UInt8(ascii: "#") else { return nil }
        guard first == UInt8(ascii: "\"") else {
            let token = line.prefix { !isSpace($0) }
            line = line.dropFirst(token.count)
            return String(decoding: token, as: UTF8.self)
        }
        var token: [UInt8] = []
        var escape = false
        line = line.dropFirst()
        while let byte = line.popFirst() {
            if escape {
                escape = false
                switch byte {
                case UInt8(ascii: "n"): token.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): token.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "t"): token.append(UInt8(ascii: "\t"))
                default: token.append(byte)
                }
            } else if byte == UInt8(ascii: "\\") {
                escape = true
            } else if byte == UInt8(ascii: "\"") {
                return String(decoding: token, as: UTF8.self)
            } else {
                token.append(byte)
            }
        }
        throw MalformedFile(line: number)
    }

    /// C's `isspace` in the C locale.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
