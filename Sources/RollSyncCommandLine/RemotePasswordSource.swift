import Foundation
import RemoteProtocol
import SFTPRemote
import WebDAVRemote

/// Finds the secrets a backend needs, never from the command line or the URL, under the secret
/// names the backends export (``SFTPRemoteStore/SecretName``, ``WebDAVRemoteStore/SecretName``):
/// - WebDAV (`webdav`, `webdavs`): the password from the environment variable named by the
///   `password-env` setting (default `ROLLSYNC_WEBDAV_PASSWORD`), else `~/.netrc` (which may also give
///   the user; the WebDAV backend reads it when it opens), else a prompt with echo off when
///   standard input is a terminal and a user is known; with none of them the request goes
///   without a password (for servers that need none).
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

    /// The secrets for the backend of ``url`` with the non-secret `settings`.
    /// - Throws: ``CommandLineError`` (usage) for a password variable given to a backend that
    ///   takes no password; `RemoteStoreError` (`unsupported`) for WebDAV settings the backend refuses.
    func secrets(settings: [String: String]) throws -> [String: String] {
        switch url.scheme?.lowercased() {
        case "webdav", "webdavs":
            return try webDAVSecrets(settings: settings)
        case "sftp":
            var secrets: [String: String] = [:]
            secrets[SFTPRemoteStore.SecretName.password] = environment[Self.sftpPasswordVariable]
            secrets[SFTPRemoteStore.SecretName.passphrase] = environment[Self.sftpPassphraseVariable]
            return secrets
        default:
            if let variable = passwordVariable, environment[variable] != nil {
                throw CommandLineError(.usage, "\(url.scheme ?? "this") remotes take no password")
            }
            return [:]
        }
    }

    /// The password from the variable; else, when the backend finds none (no netrc entry) for a
    /// known user, one typed at the prompt.
    private func webDAVSecrets(settings: [String: String]) throws -> [String: String] {
        let name = WebDAVRemoteStore.SecretName.password
        if let password = environment[passwordVariable ?? Self.webDAVVariable] {
            return [name: password]
        }
        let configuration = try WebDAVRemoteStore.Configuration(
            RemoteStoreConfiguration(url: url, settings: settings), environment: environment
        )
        if configuration.password == nil, let user = configuration.user,
            let password = TerminalPrompt.readSecret("WebDAV password for \(user)@\(url.host() ?? ""): ")
        {
            return [name: password]
        }
        return [:]
    }
}
