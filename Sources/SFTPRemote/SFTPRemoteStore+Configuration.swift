import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension SFTPRemoteStore {
    /// Everything an ``SFTPRemoteStore`` needs to connect: the typed form of the
    /// `sftp://user@host:port/path` URL and its settings and secrets (see
    /// ``SFTPRemoteStore/init(configuration:retryPolicy:)``, which reads that form into
    /// this one).
    ///
    /// ```swift
    /// var configuration = SFTPRemoteStore.Configuration(host: "sync.example.com", user: "alice", root: .absolute("/srv/rollsync"))
    /// configuration.identityFile = "~/.ssh/id_ed25519"
    /// configuration.passphrase = keyPassphrase
    /// let store = try await SFTPRemoteStore(configuration: configuration)
    /// ```
    ///
    /// The store checks the configuration when it opens: a port outside 1...65535, a
    /// ``connectionCount`` outside 1...16, a timeout that is not between 0 and 86400 seconds, a
    /// fingerprint that is not SHA-256, or ``hostKeyFingerprint`` together with
    /// ``trustOnFirstUse`` throw ``RemoteProtocol/RemoteStoreError/Code/unsupported``. A leading `~/`
    /// in ``identityFile`` and ``knownHostsFile`` is the user's home directory (`HOME`).
    ///
    /// Secrets never go in here as text that could be printed: ``description`` shows whether a
    /// ``password`` or ``passphrase`` is set, never their values.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// Where the store's root is on the server.
        public enum Root: Sendable, Equatable {
            /// An absolute server path (`sftp://host/srv/sync`).
            case absolute(String)
            /// A path relative to the login directory, empty for the login directory itself
            /// (`sftp://host/~/sync`, or no path at all).
            case home(String)
        }

        /// Whether keys held by an ssh-agent are tried.
        public enum SSHAgent: Sendable, Equatable {
            /// No agent is asked.
            case none
            /// The agent at `SSH_AUTH_SOCK`, if one is running there.
            case standard
            /// The agent listening on this socket path.
            case socket(String)
        }

        /// The server's host name or address (an IPv6 address without brackets).
        public var host: String
        /// The server's port. Default 22.
        public var port: Int
        /// The account to log in as.
        public var user: String
        /// Where the store's root is on the server; it is created, with its parents, when the store opens.
        public var root: Root
        /// A private key file (ed25519 or ECDSA) to log in with. When neither this nor a
        /// ``password`` is set, `~/.ssh/id_ed25519` and `~/.ssh/id_ecdsa` are tried.
        public var identityFile: String?
        /// The OpenSSH `known_hosts` file the host key is checked against (and recorded in with
        /// ``trustOnFirstUse``). Default `~/.ssh/known_hosts`.
        public var knownHostsFile: String
        /// A pinned host key fingerprint, `SHA256:…` as OpenSSH prints it (the prefix and `=`
        /// padding are optional); replaces ``knownHostsFile``.
        public var hostKeyFingerprint: String?
        /// Records an unknown host's key in ``knownHostsFile`` and accepts it. Default false: an
        /// unknown host throws `hostKeyUnknown`. A changed key is refused whatever this says.
        public var trustOnFirstUse: Bool
        /// Whether the keys of an ssh-agent are tried. Default ``SSHAgent/standard``.
        public var sshAgent: SSHAgent
        /// How long to wait for the connection and for each answer of the server. Default 30 seconds.
        public var timeout: Duration
        /// How long a pooled connection may stay idle before it is probed with a keepalive.
        /// Default 30 seconds.
        public var keepaliveInterval: Duration
        /// The most SSH connections the store opens for parallel calls, 1 to 16. Default 4.
        public var connectionCount: Int
        /// How calls that failed because the connection dropped or timed out are retried.
        public var retryPolicy: RetryPolicy
        /// The account's password, for password authentication. Never printed.
        public var password: String?
        /// The passphrase of the ``identityFile`` key. Never printed.
        public var passphrase: String?

        /// The connections a store may open at most, and the timeouts it accepts.
        static let connectionCountRange = 1...16
        static let timeoutRange = Duration.milliseconds(1)...Duration.seconds(86_400)

        /// A configuration for `user` on `host`, with the defaults above for everything else.
        public init(
            host: String,
            port: Int = 22,
            user: String,
            root: Root = .home(""),
            password: String? = nil,
            identityFile: String? = nil,
            passphrase: String? = nil
        ) {
            self.host = host
            self.port = port
            self.user = user
            self.root = root
            self.password = password
            self.identityFile = identityFile
            self.passphrase = passphrase
            knownHostsFile = "~/.ssh/known_hosts"
            trustOnFirstUse = false
            sshAgent = .standard
            timeout = .seconds(30)
            keepaliveInterval = .seconds(30)
            connectionCount = 4
            retryPolicy = RetryPolicy()
        }

        /// The server, the root and every setting; a set password or passphrase shows as
        /// `<redacted>`.
        public var description: String {
            var parts = [url.absoluteString]
            if let identityFile { parts.append("identity-file=\(identityFile)") }
            if let hostKeyFingerprint {
                parts.append("host-key-fingerprint=\(hostKeyFingerprint)")
            } else {
                parts.append("known-hosts=\(knownHostsFile)")
            }
            if trustOnFirstUse { parts.append("trust-on-first-use=true") }
            switch sshAgent {
            case .none: parts.append("ssh-agent=false")
            case .standard: break
            case .socket(let path): parts.append("ssh-agent=\(path)")
            }
            parts.append("timeout=\(timeout) keepalive-interval=\(keepaliveInterval) connections=\(connectionCount)")
            if password != nil { parts.append("password=<redacted>") }
            if passphrase != nil { parts.append("passphrase=<redacted>") }
            return parts.joined(separator: " ")
        }

        /// The `sftp://user@host:port/path` URL this configuration reads as (`/~/path` for a root
        /// in the login directory).
        var url: URL {
            var components = URLComponents()
            components.scheme = "sftp"
            components.user = user
            components.host = host.contains(":") ? "[\(host)]" : host
            components.port = port == 22 ? nil : port
            switch root {
            case .absolute(let path): components.path = path.hasPrefix("/") ? path : "/" + path
            case .home(let path): components.path = path.isEmpty ? "/~" : "/~/" + path
            }
            return components.url ?? URL(string: "sftp:")!
        }

        /// The host as written in `known_hosts`: `host` on port 22, `[host]:port` otherwise.
        var knownHostsName: String { port == 22 ? host : "[\(host)]:\(port)" }

        /// Whether an ssh-agent is asked for keys.
        var usesAgent: Bool { sshAgent != .none }

        /// The agent socket to use instead of `SSH_AUTH_SOCK`, if one is named.
        var agentSocket: String? {
            if case .socket(let path) = sshAgent { return path }
            return nil
        }

        /// This configuration checked, with the fingerprint normalised and `~/` expanded to
        /// `environment`'s `HOME`.
        /// - Throws: ``RemoteProtocol/RemoteStoreError/Code/unsupported`` naming what is invalid.
        func validated(environment: [String: String]) throws -> Configuration {
            guard !host.isEmpty else { throw Self.invalid("the SFTP host is empty") }
            guard !user.isEmpty else { throw Self.invalid("the SFTP user is empty") }
            guard (1...65535).contains(port) else { throw Self.invalid("the SFTP port \(port) is not between 1 and 65535") }
            guard Self.connectionCountRange.contains(connectionCount) else {
                throw Self.invalid("the SFTP connection count must be from 1 to 16, not \(connectionCount)")
            }
            for (name, value) in [("timeout", timeout), ("keepalive interval", keepaliveInterval)] where !Self.timeoutRange.contains(value) {
                throw Self.invalid("the SFTP \(name) must be between 0 and 86400 seconds, not \(value)")
            }
            if hostKeyFingerprint != nil && trustOnFirstUse {
                throw Self.invalid("'host-key-fingerprint' and 'trust-on-first-use' exclude each other")
            }
            var checked = self
            checked.hostKeyFingerprint = try hostKeyFingerprint.map(Self.normalisedFingerprint)
            let home = environment["HOME"] ?? NSHomeDirectory()
            checked.identityFile = identityFile.map { Self.expandingTilde($0, home: home) }
            checked.knownHostsFile = Self.expandingTilde(knownHostsFile, home: home)
            return checked
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

        static func invalid(_ message: String) -> RemoteStoreError {
            RemoteStoreError(.unsupported, message: message)
        }
    }
}
