import Foundation

/// The connection settings every libcurl handle of one WebDAV store is configured with: who to
/// authenticate as, how to trust the server, and how long to wait.
struct CurlOptions: Sendable, CustomStringConvertible {
    /// Which HTTP authentication schemes libcurl may use.
    enum Authentication: String, Sendable {
        /// Basic, sent with the first request (use only over TLS or loopback).
        case basic
        /// Digest: costs one 401 round-trip per connection before libcurl knows the nonce.
        case digest
        /// Whatever the server offers, the safest first (costs a 401 round-trip).
        case any
    }

    /// The user name, or `nil` for no authentication (or one from the netrc file).
    var user: String?
    /// The password; never printed.
    var password: String?
    /// The authentication schemes allowed.
    var authentication: Authentication = .basic
    /// Look credentials up in a netrc file when no password is configured.
    var useNetrc = true
    /// The netrc file to read; `nil` means libcurl's default, `~/.netrc`.
    var netrcFile: String?
    /// A PEM file of certificate authorities to trust instead of the system's.
    var caFile: String?
    /// How long establishing a connection (TCP and TLS) may take.
    var connectTimeout: Duration = .seconds(15)
    /// A transfer slower than ``lowSpeedLimit`` bytes per second for this long is abandoned.
    var lowSpeedTime: Duration = .seconds(30)
    /// The throughput, in bytes per second, below which ``lowSpeedTime`` starts counting.
    var lowSpeedLimit = 1
    /// The libcurl receive and send buffer size, in bytes.
    var bufferSize = 512 * 1024

    /// Every setting except the password, which shows as `<redacted>` when set.
    var description: String {
        "user=\(user ?? "-") password=\(password == nil ? "-" : "<redacted>") auth=\(authentication.rawValue) "
            + "netrc=\(useNetrc ? (netrcFile ?? "~/.netrc") : "off") ca-file=\(caFile ?? "system") "
            + "connect-timeout=\(connectTimeout) low-speed=\(lowSpeedLimit)B/s for \(lowSpeedTime)"
    }
}
