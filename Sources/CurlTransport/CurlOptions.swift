import Foundation

/// The connection settings every libcurl handle of one store is configured with: who to
/// authenticate as with HTTP authentication, how to trust the server, and how long to wait.
package struct CurlOptions: Sendable, CustomStringConvertible {
    /// Which HTTP authentication schemes libcurl may use.
    package enum Authentication: Sendable {
        /// Basic, sent with the first request (use only over TLS or loopback).
        case basic
        /// Digest: costs one 401 round-trip per connection before libcurl knows the nonce.
        case digest
        /// Whatever the server offers, the safest first (costs a 401 round-trip).
        case any

        /// The scheme's name as settings spell it.
        package var rawValue: String {
            switch self {
            case .basic: "basic"
            case .digest: "digest"
            case .any: "any"
            }
        }
    }

    /// The kind of server, in messages and thread names (`WebDAV`, `S3`).
    package var serverKind = "WebDAV"
    /// The user name, or `nil` for no authentication (S3 signs its requests itself).
    package var user: String?
    /// The password; never printed.
    package var password: String?
    /// The authentication schemes allowed.
    package var authentication: Authentication = .basic
    /// A PEM file of certificate authorities to trust instead of the system's.
    package var caFile: String?
    /// How long establishing a connection (TCP and TLS) may take.
    package var connectTimeout: Duration = .seconds(15)
    /// A transfer slower than ``lowSpeedLimit`` bytes per second for this long is abandoned.
    package var lowSpeedTime: Duration = .seconds(30)
    /// The throughput, in bytes per second, below which ``lowSpeedTime`` starts counting.
    package var lowSpeedLimit = 1
    /// The libcurl receive and send buffer size, in bytes.
    package var bufferSize = 512 * 1024

    /// Default options.
    package init() {}

    /// Every setting except the password, which shows as `<redacted>` when set.
    package var description: String {
        "user=\(user ?? "-") password=\(password == nil ? "-" : "<redacted>") auth=\(authentication.rawValue) "
            + "ca-file=\(caFile ?? "system") "
            + "connect-timeout=\(connectTimeout) low-speed=\(lowSpeedLimit)B/s for \(lowSpeedTime)"
    }
}
