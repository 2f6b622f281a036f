import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension WebDAVRemoteStore: RemoteStoreProvider {
    /// `webdav` (HTTP) and `webdavs` (HTTPS). Plain `http`/`https` are not registered, since other
    /// backends may claim them; an application that wants them registers them itself:
    /// `RemoteStoreRegistry.shared.register(scheme: "https") { try await WebDAVRemoteStore.makeStore(for: $0) }`.
    public static let urlSchemes: Set<String> = ["webdav", "webdavs"]

    /// The names of the secrets a WebDAV store reads from
    /// ``RemoteProtocol/RemoteStoreConfiguration/secrets``.
    public enum SecretName {
        /// `password`: the password of the `user` setting (or of the URL's user).
        public static let password = "password"
    }

    /// Opens a store with ``WebDAVRemoteStore/init(configuration:environment:)`` and
    /// the process environment. No request is sent until the first call.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        try WebDAVRemoteStore(configuration: configuration)
    }

    /// Reads `configuration` into a ``Configuration`` (see ``Configuration/init(_:environment:)``)
    /// and opens the store with ``init(configuration:)``. No request is sent until
    /// the first call.
    ///
    /// - Parameters:
    ///   - configuration: the URL, settings and secrets.
    ///   - environment: where the variable named by the `password-env` setting, and the `HOME` of
    ///     the default netrc file, are read.
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for an unusable URL, an unknown
    ///   setting or an invalid value.
    public convenience init(
        configuration: RemoteStoreConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        try self.init(configuration: try Configuration(configuration, environment: environment))
    }
}

extension WebDAVRemoteStore.Configuration {
    /// Every setting key the URL form reads.
    static let knownSettings: Set<String> = [
        "user", "auth", "password-env", "netrc", "netrc-file", "ca-file", "connect-timeout", "low-speed-time",
        "low-speed-limit", "retries", "connections",
    ]

    /// Reads a `webdav(s)://host/path` (or `http(s)://`) URL and its settings and secrets.
    ///
    /// Setting keys (all optional; values are strings):
    ///
    /// | key | meaning | default |
    /// |---|---|---|
    /// | `user` | user name (overrides a user in the URL) | the URL's user, else none |
    /// | `auth` | `basic`, `digest` or `any` | `basic` |
    /// | `password-env` | name of an environment variable holding the password | none |
    /// | `netrc` | `on` or `off`: look the password up in a netrc file when none is given | `on` |
    /// | `netrc-file` | the netrc file to read | `~/.netrc` |
    /// | `ca-file` | PEM file of certificate authorities to trust for `webdavs://` | the system's |
    /// | `connect-timeout` | seconds to establish a connection | `15` |
    /// | `low-speed-time` | seconds a transfer may stay below `low-speed-limit` | `30` |
    /// | `low-speed-limit` | bytes per second counted as stalled | `1` |
    /// | `retries` | attempts for idempotent requests after retryable failures | `4` |
    /// | `connections` | at most this many parallel connections (one libcurl handle each) | `4` |
    ///
    /// The password comes from the secret ``WebDAVRemoteStore/SecretName/password``, else from the
    /// variable named by `password-env`, else from the netrc file's entry for the URL's host (and
    /// the user, if one is known; the entry's login becomes the user if none is), read by the
    /// package's one netrc reader; never from the URL. With none of them, requests go without a
    /// password.
    ///
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for an unknown key, an invalid value,
    ///   or a `password-env` variable that is not set, naming the key (never a secret).
    public init(_ configuration: RemoteStoreConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let settings = configuration.settings
        let values = SettingValues(settings, backend: "WebDAV")
        if let unknown = settings.keys.filter({ !Self.knownSettings.contains($0) }).sorted().first {
            throw RemoteStoreError(
                .unsupported,
                message: "unknown WebDAV setting '\(unknown)'; known settings: \(Self.knownSettings.sorted().joined(separator: ", "))"
            )
        }
        self.init(url: configuration.url, user: settings["user"])
        if let auth = settings["auth"] {
            guard let method = Authentication(rawValue: auth.lowercased()) else {
                throw values.invalid("auth", auth, expected: "basic, digest or any")
            }
            authentication = method
        }
        password = configuration.secrets[WebDAVRemoteStore.SecretName.password]
        if password == nil, let variable = settings["password-env"] {
            guard let value = environment[variable] else {
                throw RemoteStoreError(
                    .unsupported,
                    message: "the environment variable '\(variable)' named by the setting password-env is not set"
                )
            }
            password = value
        }
        var useNetrc = true
        if let netrc = settings["netrc"] {
            guard ["on", "off"].contains(netrc.lowercased()) else { throw values.invalid("netrc", netrc, expected: "on or off") }
            useNetrc = netrc.lowercased() == "on"
        }
        if password == nil, useNetrc, let host = configuration.url.host(percentEncoded: false),
            let netrc = Netrc.load(file: settings["netrc-file"], environment: environment)
        {
            let entry: Netrc.Credentials?
            do {
                entry = try netrc.credentials(for: host, login: user)
            } catch {
                throw RemoteStoreError(.unsupported, message: "\(error); fix it or set netrc=off")
            }
            if let netrcPassword = entry?.password {
                password = netrcPassword
                user = user ?? entry?.login
            }
        }
        caFile = settings["ca-file"]
        connectTimeout = try values.seconds("connect-timeout") ?? connectTimeout
        lowSpeedTime = try values.seconds("low-speed-time") ?? lowSpeedTime
        lowSpeedLimit = try values.count("low-speed-limit", minimum: 1) ?? lowSpeedLimit
        if let attempts = try values.count("retries", minimum: 1) {
            retryPolicy = RetryPolicy(maximumAttempts: attempts)
        }
        connectionCount = try values.count("connections", minimum: 1) ?? connectionCount
    }
}
