import Foundation

/// The login and password `~/.netrc` gives for a host (the format curl and ftp read: tokens
/// `machine NAME`, `default`, `login USER`, `password SECRET`, separated by blanks or newlines).
struct Netrc: Sendable {
    /// One entry's credentials.
    struct Credentials: Sendable {
        var login: String?
        var password: String?
    }

    private var machines: [String: Credentials] = [:]
    private var fallback: Credentials?

    /// Parses `text`; unknown tokens (`account`, `macdef`) are skipped with their value.
    init(parsing text: String) {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
        var current: (name: String?, credentials: Credentials)?
        func finish() {
            guard let entry = current else { return }
            if let name = entry.name { machines[name] = machines[name] ?? entry.credentials } else { fallback = entry.credentials }
        }
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            let value = index + 1 < tokens.count ? tokens[index + 1] : nil
            switch token {
            case "machine":
                finish()
                current = (value, Credentials())
                index += 2
            case "default":
                finish()
                current = (nil, Credentials())
                index += 1
            case "login":
                current?.credentials.login = value
                index += 2
            case "password":
                current?.credentials.password = value
                index += 2
            default:
                index += 2
            }
        }
        finish()
    }

    /// Reads `$HOME/.netrc`; `nil` if there is none.
    static func load(environment: [String: String]) -> Netrc? {
        let home = environment["HOME"] ?? NSHomeDirectory()
        guard let text = try? String(contentsOfFile: home + "/.netrc", encoding: .utf8) else { return nil }
        return Netrc(parsing: text)
    }

    /// The credentials for `host`, else the `default` entry's.
    func credentials(for host: String) -> Credentials? {
        machines[host] ?? fallback
    }
}
