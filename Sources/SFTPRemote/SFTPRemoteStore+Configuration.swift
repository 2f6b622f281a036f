import Foundation
import RemoteProtocol

/// Everything an ``SFTPRemoteStore`` needs to connect, parsed and checked from a
/// ``RemoteProtocol/RemoteStoreConfiguration``.
///
/// The URL is `sftp://user@host:port/path`. The port defaults to 22 and the user to the current
/// user. The path is absolute on the server; `/~/path` (or no path at all) is relative to the
/// user's login directory. The settings keys are listed in ``Key``, the secrets in ``Secret``.
/// An unknown key or an invalid value throws ``RemoteProtocol/RemoteStoreError/Code/unsupported``
/// naming the key, so a typo never silently weakens security.
struct SFTPStoreSettings: Sendable {
    /// The plain settings an SFTP store reads.
    enum Key: String, CaseIterable {
        /// Path of a private key file (ed25519 or ECDSA; `~` is expanded).
        case identityFile = "identity-file"
        /// Path of an OpenSSH `known_hosts` file; default `~/.ssh/known_hosts`.
        case knownHosts = "known-hosts"
        /// A pinned host key fingerprint, `SHA256:…` as OpenSSH prints it; replaces `known-hosts`.
        case hostKeyFingerprint = "host-key-fingerprint"
        /// `true` to record an unknown host's key into `known-hosts` and accept it. Default `false`.
        case trustOnFirstUse = "trust-on-first-use"
        /// `true` or `false`: authenticate with the keys of the ssh-agent at `SSH_AUTH_SOCK`; or
        /// the absolute path of an agent's socket to use that one. Default: `true` when
        /// `SSH_AUTH_SOCK` is set.
        case sshAgent = "ssh-agent"
        /// Seconds to wait for the connection and for each answer of the server. Default 30.
        case timeout = "timeout"
        /// Seconds of idleness after which a pooled connection is probed with a keepalive. Default 30.
        case keepaliveInterval = "keepalive-interval"
        /// The most SSH connections the store opens for parallel calls, 1 to 16. Default 4.
        case connections = "connections"
    }

    /// The secrets an SFTP store reads from ``RemoteProtocol/RemoteStoreConfiguration/secrets``.
    enum Secret: String, CaseIterable {
        /// The account's password, for password authentication.
        case password
        /// The passphrase of the `identity-file` key.
        case passphrase
    }

    /// Where the store's root is on the server.
    enum RootLocation: Sendable, Equatable {
        /// An absolute server path.
        case absolute(String)
        /// A path relative to the login directory (empty for the login directory itself).
        case home(String)
    }

    var host: String
    var port: Int
    var user: String
    var root: RootLocation
    var identityFile: String?
    var knownHostsFile: String
    var pinnedFingerprint: String?
    var trustOnFirstUse: Bool
    var useAgent: Bool
    /// The agent socket to use instead of `SSH_AUTH_SOCK`, if the `ssh-agent` setting names one.
    var agentSocket: String?
    var timeout: Duration
    var keepaliveInterval: Duration
    var maximumConnections: Int
    var password: String?
    var passphrase: String?

    /// The host as written in `known_hosts`: `host` on port 22, `[host]:port` otherwise.
    var knownHostsName: String { port == 22 ? host : "[\(host)]:\(port)" }

    /// Parses and checks `configuration`.
    /// - Throws: ``RemoteProtocol/RemoteStoreError/Code/unsupported`` for anything invalid.
    init(_ configuration: RemoteStoreConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let url = configuration.url
        let shown = url.redactingPassword
        guard configuration.scheme == "sftp" else {
            throw Self.invalid("\(shown) is not an sftp:// URL")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw Self.invalid("\(shown) names no host; the form is sftp://user@host:port/path")
        }
        if url.password(percentEncoded: true) != nil {
            throw Self.invalid("\(shown) contains a password; pass it as the secret 'password' instead")
        }
        if url.query(percentEncoded: true) != nil || url.fragment(percentEncoded: true) != nil {
            throw Self.invalid("\(shown) has a query or fragment, which sftp:// URLs do not use")
        }
        let knownKeys = Set(Key.allCases.map(\.rawValue))
        if let unknown = configuration.settings.keys.sorted().first(where: { !knownKeys.contains($0) }) {
            throw Self.invalid(
                "unknown SFTP setting '\(unknown)'; known settings: \(Key.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        let knownSecrets = Set(Secret.allCases.map(\.rawValue))
        if let unknown = configuration.secrets.keys.sorted().first(where: { !knownSecrets.contains($0) }) {
            throw Self.invalid("unknown SFTP secret '\(unknown)'; known secrets: password, passphrase")
        }

        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port ?? 22
        guard (1...65535).contains(port) else { throw Self.invalid("\(shown) has an invalid port") }
        if let user = url.user(percentEncoded: false), !user.isEmpty {
            self.user = user
        } else if let user = environment["USER"] ?? environment["LOGNAME"], !user.isEmpty {
            self.user = user
        } else {
            throw Self.invalid("\(shown) names no user, and USER is not set; the form is sftp://user@host/path")
        }
        self.root = Self.rootLocation(fromURLPath: url.path(percentEncoded: false))

        let settings = configuration.settings
        let home = environment["HOME"] ?? NSHomeDirectory()
        identityFile = settings[Key.identityFile.rawValue].map { Self.expandingTilde($0, home: home) }
        knownHostsFile = Self.expandingTilde(settings[Key.knownHosts.rawValue] ?? "~/.ssh/known_hosts", home: home)
        pinnedFingerprint = try settings[Key.hostKeyFingerprint.rawValue].map(Self.normalisedFingerprint)
        trustOnFirstUse = try Self.bool(settings, .trustOnFirstUse) ?? false
        if let socket = settings[Key.sshAgent.rawValue], socket.hasPrefix("/") {
            useAgent = true
            agentSocket = socket
        } else {
            useAgent = try Self.bool(settings, .sshAgent) ?? (environment["SSH_AUTH_SOCK"] != nil)
        }
        timeout = try Self.seconds(settings, .timeout) ?? .seconds(30)
        keepaliveInterval = try Self.seconds(settings, .keepaliveInterval) ?? .seconds(30)
        maximumConnections = try Self.integer(settings, .connections, in: 1...16) ?? 4
        password = configuration.secrets[Secret.password.rawValue]
        passphrase = configuration.secrets[Secret.passphrase.rawValue]
        if pinnedFingerprint != nil && trustOnFirstUse {
            throw Self.invalid("'host-key-fingerprint' and 'trust-on-first-use' exclude each other")
        }
    }

    /// `""` and `/~` are the login directory, `/~/x` is below it, anything else is absolute.
    private static func rootLocation(fromURLPath path: String) -> RootLocation {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.isEmpty || trimmed == "/~" { return .home("") }
        if trimmed.hasPrefix("/~/") { return .home(String(trimmed.dropFirst(3))) }
        return .absolute(trimmed)
    }

    private static func expandingTilde(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }

    /// Accepts `SHA256:base64` with or without the `SHA256:` prefix and `=` padding.
    private static func normalisedFingerprint(_ text: String) throws -> String {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.lowercased().hasPrefix("sha256:") { body = String(body.dropFirst(7)) }
        while body.hasSuffix("=") { body.removeLast() }
        let padded = body + String(repeating: "=", count: (4 - body.count % 4) % 4)
        guard let bytes = Data(base64Encoded: padded), bytes.count == 32 else {
            throw invalid(
                "'host-key-fingerprint' must be a SHA-256 fingerprint as OpenSSH prints it (SHA256:<43 base64 characters>), not '\(text)'"
            )
        }
        return "SHA256:" + body
    }

    private static func bool(_ settings: [String: String], _ key: Key) throws -> Bool? {
        guard let value = settings[key.rawValue] else { return nil }
        switch value.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            let alternative = key == .sshAgent ? ", or the absolute path of an agent socket," : ""
            throw invalid("the setting '\(key.rawValue)' must be true or false\(alternative) not '\(value)'")
        }
    }

    private static func seconds(_ settings: [String: String], _ key: Key) throws -> Duration? {
        guard let value = settings[key.rawValue] else { return nil }
        guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
            throw invalid("the setting '\(key.rawValue)' must be a number of seconds between 0 and 86400, not '\(value)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    private static func integer(_ settings: [String: String], _ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = settings[key.rawValue] else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw invalid("the setting '\(key.rawValue)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }

    private static func invalid(_ message: String) -> RemoteStoreError {
        RemoteStoreError(.unsupported, message: message)
    }
}
