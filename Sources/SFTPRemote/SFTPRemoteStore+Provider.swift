import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension SFTPRemoteStore: RemoteStoreProvider {
    /// `sftp`.
    public static let urlSchemes: Set<String> = ["sftp"]

    /// The names of the secrets an SFTP store reads from
    /// ``RemoteProtocol/RemoteStoreConfiguration/secrets``; any other name is refused.
    public enum SecretName {
        /// `password`: the account's password, for password authentication.
        public static let password = "password"
        /// `passphrase`: the passphrase of the `identity-file` key.
        public static let passphrase = "passphrase"

        /// Every secret name, in the order messages list them.
        static let all = [password, passphrase]
    }

    /// Opens an ``SFTPRemoteStore`` with the default retry policy; see
    /// ``SFTPRemoteStore/init(configuration:retryPolicy:)``.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        try await SFTPRemoteStore(configuration: configuration)
    }

    /// Reads `configuration` into a ``Configuration`` (see
    /// ``Configuration/init(_:environment:)``) and opens the store with
    /// ``init(configuration:)``.
    ///
    /// - Throws: ``RemoteProtocol/RemoteStoreError``: `unsupported` for an invalid URL, setting or
    ///   secret name; otherwise what ``init(configuration:)`` throws.
    public convenience init(configuration: RemoteStoreConfiguration, retryPolicy: RetryPolicy = RetryPolicy()) async throws {
        var typed = try Configuration(configuration)
        typed.retryPolicy = retryPolicy
        try await self.init(configuration: typed)
    }
}

extension SFTPRemoteStore.Configuration {
    /// The plain settings an SFTP store reads from ``RemoteProtocol/RemoteStoreConfiguration/settings``.
    enum SettingKey: String, CaseIterable {
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

    /// Reads an `sftp://user@host:port/path` URL, its settings and its secrets.
    ///
    /// The port defaults to 22 and the user to `USER` (else `LOGNAME`) of `environment`. The path
    /// is absolute on the server; `/~/path` (or no path at all) is relative to the user's login
    /// directory. The settings are `identity-file`, `known-hosts`, `host-key-fingerprint`,
    /// `trust-on-first-use`, `ssh-agent`, `timeout`, `keepalive-interval` and `connections`; the
    /// secrets are ``SFTPRemoteStore/SecretName``. The URL takes no password, query or fragment.
    ///
    /// - Throws: ``RemoteProtocol/RemoteStoreError/Code/unsupported`` naming what is invalid (an
    ///   unknown setting or secret, a value of the wrong form), so a typo never silently weakens
    ///   security; a secret's value is never named.
    public init(_ configuration: RemoteStoreConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let url = configuration.url
        let shown = url.redactingPassword
        guard configuration.scheme == "sftp" else {
            throw Self.invalid("\(shown) is not an sftp:// URL")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw Self.invalid("\(shown) names no host; the form is sftp://user@host:port/path")
        }
        if url.password(percentEncoded: true) != nil {
            throw Self.invalid("\(shown) contains a password; pass it as the secret '\(SFTPRemoteStore.SecretName.password)' instead")
        }
        if url.query(percentEncoded: true) != nil || url.fragment(percentEncoded: true) != nil {
            throw Self.invalid("\(shown) has a query or fragment, which sftp:// URLs do not use")
        }
        let knownKeys = Set(SettingKey.allCases.map(\.rawValue))
        if let unknown = configuration.settings.keys.sorted().first(where: { !knownKeys.contains($0) }) {
            throw Self.invalid(
                "unknown SFTP setting '\(unknown)'; known settings: \(SettingKey.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        let secretNames = SFTPRemoteStore.SecretName.all
        if let unknown = configuration.secrets.keys.sorted().first(where: { !secretNames.contains($0) }) {
            throw Self.invalid("unknown SFTP secret '\(unknown)'; known secrets: \(secretNames.joined(separator: ", "))")
        }
        let user: String
        if let name = url.user(percentEncoded: false), !name.isEmpty {
            user = name
        } else if let name = environment["USER"] ?? environment["LOGNAME"], !name.isEmpty {
            user = name
        } else {
            throw Self.invalid("\(shown) names no user, and USER is not set; the form is sftp://user@host/path")
        }
        self.init(
            host: host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host,
            port: url.port ?? 22,
            user: user,
            root: Self.root(fromURLPath: url.path(percentEncoded: false)),
            password: configuration.secrets[SFTPRemoteStore.SecretName.password],
            identityFile: configuration.settings[SettingKey.identityFile.rawValue],
            passphrase: configuration.secrets[SFTPRemoteStore.SecretName.passphrase]
        )

        let settings = configuration.settings
        knownHostsFile = settings[SettingKey.knownHosts.rawValue] ?? knownHostsFile
        hostKeyFingerprint = settings[SettingKey.hostKeyFingerprint.rawValue]
        trustOnFirstUse = try Self.bool(settings, .trustOnFirstUse) ?? false
        if let socket = settings[SettingKey.sshAgent.rawValue], socket.hasPrefix("/") {
            sshAgent = .socket(socket)
        } else {
            sshAgent = (try Self.bool(settings, .sshAgent) ?? (environment["SSH_AUTH_SOCK"] != nil)) ? .standard : .none
        }
        timeout = try Self.seconds(settings, .timeout) ?? timeout
        keepaliveInterval = try Self.seconds(settings, .keepaliveInterval) ?? keepaliveInterval
        connectionCount = try Self.integer(settings, .connections, in: Self.connectionCountRange) ?? connectionCount
    }

    /// `""` and `/~` are the login directory, `/~/x` is below it, anything else is absolute.
    private static func root(fromURLPath path: String) -> Root {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.isEmpty || trimmed == "/~" { return .home("") }
        if trimmed.hasPrefix("/~/") { return .home(String(trimmed.dropFirst(3))) }
        return .absolute(trimmed)
    }

    private static func bool(_ settings: [String: String], _ key: SettingKey) throws -> Bool? {
        guard let value = settings[key.rawValue] else { return nil }
        switch value.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            let alternative = key == .sshAgent ? ", or the absolute path of an agent socket," : ""
            throw invalid("the setting '\(key.rawValue)' must be true or false\(alternative) not '\(value)'")
        }
    }

    private static func seconds(_ settings: [String: String], _ key: SettingKey) throws -> Duration? {
        guard let value = settings[key.rawValue] else { return nil }
        guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
            throw invalid("the setting '\(key.rawValue)' must be a number of seconds between 0 and 86400, not '\(value)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    private static func integer(_ settings: [String: String], _ key: SettingKey, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = settings[key.rawValue] else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw invalid("the setting '\(key.rawValue)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }
}
