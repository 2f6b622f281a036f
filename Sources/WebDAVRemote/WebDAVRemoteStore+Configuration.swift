import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

/// A WebDAV store's configuration, read and checked from a ``RemoteStoreConfiguration``.
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
/// The password comes from the secret `password`, else from the variable named by `password-env`,
/// else from the netrc file; never from the URL. An unknown key or an invalid value throws
/// `unsupported`, naming the key (never a secret).
struct WebDAVSettings: Sendable {
    /// Where the server is.
    var endpoint: WebDAVEndpoint
    /// How each libcurl handle connects and authenticates.
    var curlOptions = CurlOptions()
    /// How idempotent requests are retried.
    var retryPolicy = RetryPolicy()
    /// The size of the connection pool.
    var connectionCount = 4

    /// Every setting key this backend reads.
    static let knownKeys: Set<String> = [
        "user", "auth", "password-env", "netrc", "netrc-file", "ca-file", "connect-timeout", "low-speed-time",
        "low-speed-limit", "retries", "connections",
    ]

    /// Reads `configuration`, taking environment variables from `environment`.
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for a bad URL, key or value.
    init(_ configuration: RemoteStoreConfiguration, environment: [String: String]) throws {
        let settings = configuration.settings
        let values = SettingValues(settings, backend: "WebDAV")
        if let unknown = settings.keys.filter({ !Self.knownKeys.contains($0) }).sorted().first {
            throw RemoteStoreError(
                .unsupported,
                message: "unknown WebDAV setting '\(unknown)'; known settings: \(Self.knownKeys.sorted().joined(separator: ", "))"
            )
        }
        endpoint = try WebDAVEndpoint(url: configuration.url)
        curlOptions.user = settings["user"] ?? configuration.url.user(percentEncoded: false)
        if let auth = settings["auth"] {
            guard let method = CurlOptions.Authentication(rawValue: auth.lowercased()) else {
                throw values.invalid("auth", auth, expected: "basic, digest or any")
            }
            curlOptions.authentication = method
        }
        curlOptions.password = configuration.secrets["password"]
        if curlOptions.password == nil, let variable = settings["password-env"] {
            guard let password = environment[variable] else {
                throw RemoteStoreError(
                    .unsupported,
                    message: "the environment variable '\(variable)' named by the setting password-env is not set"
                )
            }
            curlOptions.password = password
        }
        if let netrc = settings["netrc"] {
            guard ["on", "off"].contains(netrc.lowercased()) else { throw values.invalid("netrc", netrc, expected: "on or off") }
            curlOptions.useNetrc = netrc.lowercased() == "on"
        }
        curlOptions.netrcFile = settings["netrc-file"]
        curlOptions.caFile = settings["ca-file"]
        curlOptions.connectTimeout = try values.seconds("connect-timeout") ?? curlOptions.connectTimeout
        curlOptions.lowSpeedTime = try values.seconds("low-speed-time") ?? curlOptions.lowSpeedTime
        curlOptions.lowSpeedLimit = try values.count("low-speed-limit", minimum: 1) ?? curlOptions.lowSpeedLimit
        if let attempts = try values.count("retries", minimum: 1) {
            retryPolicy = RetryPolicy(maximumAttempts: attempts)
        }
        connectionCount = try values.count("connections", minimum: 1) ?? connectionCount
    }
}
