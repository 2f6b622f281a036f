import Foundation

/// Finds the secrets a backend needs, never from the command line or the URL:
/// - WebDAV (`webdav`, `webdavs`): the password from the environment variable named by the
///   `password-env` setting (default `ROLLSYNC_WEBDAV_PASSWORD`), else `~/.netrc` (which may also give
///   the user), else a prompt with echo off when standard input is a terminal and a user is known;
///   with none of them the request goes without a password (for servers that need none).
/// - SFTP: the login password from `ROLLSYNC_SFTP_PASSWORD` and the key's passphrase from
///   `ROLLSYNC_SFTP_PASSPHRASE`, when set (keys without passphrase need neither).
struct RemotePasswordSource: Sendable {
    /// The default variable holding the WebDAV password.
    static let webDAVVariable = "ROLLSYNC_WEBDAV_PASSWORD"
    /// The variable holding the SFTP login password.
    static let sftpPasswordVariable = "ROLLSYNC_SFTP_PASSWORD"
    /// The variable holding the SFTP private key's passphrase.
    static let sftpPassphraseVariable = "ROLLSYNC_SFTP_PASSPHRASE"

    var url: URL
    var passwordVariable: String?
    var environment: [String: String]

    /// The secrets for the backend of ``url``; may set the `user` setting from `~/.netrc`.
    func secrets(settings: inout [String: String]) throws -> [String: String] {
        switch url.scheme?.lowercased() {
        case "webdav", "webdavs":
            return webDAVSecrets(settings: &settings)
        case "sftp":
            var secrets: [String: String] = [:]
            secrets["password"] = environment[Self.sftpPasswordVariable]
            secrets["passphrase"] = environment[Self.sftpPassphraseVariable]
            return secrets
        default:
            if let variable = passwordVariable, environment[variable] != nil {
                throw CommandLineError(.usage, "\(url.scheme ?? "this") remotes take no password")
            }
            return [:]
        }
    }

    private func webDAVSecrets(settings: inout [String: String]) -> [String: String] {
        if let password = environment[passwordVariable ?? Self.webDAVVariable] {
            return ["password": password]
        }
        let user = settings["user"] ?? url.user(percentEncoded: false)
        if let host = url.host(), let entry = Netrc.load(environment: environment)?.credentials(for: host),
            let password = entry.password, user == nil || entry.login == nil || entry.login == user
        {
            if user == nil, let login = entry.login { settings["user"] = login }
            return ["password": password]
        }
        if let user, let password = TerminalPrompt.readSecret("WebDAV password for \(user)@\(url.host() ?? ""): ") {
            return ["password": password]
        }
        return [:]
    }
}
