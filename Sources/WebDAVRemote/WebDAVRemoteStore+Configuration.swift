import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension WebDAVRemoteStore {
    /// Where a ``WebDAVRemoteStore`` lives and how it logs in: the typed form of the
    /// `webdavs://host/path` URL and its settings and secrets (see
    /// ``WebDAVRemoteStore/init(configuration:environment:)``, which reads that form
    /// into this one, taking the password from the secret, a variable or a netrc file).
    ///
    /// ```swift
    /// var configuration = WebDAVRemoteStore.Configuration(
    ///     url: URL(string: "webdavs://dav.example.com/sync/app")!, user: "alice", password: password)
    /// configuration.authentication = .digest
    /// let store = try WebDAVRemoteStore(configuration: configuration)
    /// ```
    ///
    /// The store checks the configuration when it opens: a URL that is not `webdav(s)://` or
    /// `http(s)://`, has no host, or has a query or fragment, a ``connectionCount`` or
    /// ``lowSpeedLimit`` below 1, or a timeout that is not positive throw
    /// ``RemoteProtocol/RemoteStoreError/Code/unsupported``.
    ///
    /// The password never goes in here as text that could be printed: ``description`` shows
    /// whether one is set, never its value.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// Which HTTP authentication schemes the store may use.
        public enum Authentication: String, Sendable {
            /// Basic, sent with the first request (use only over TLS or loopback). The default.
            case basic
            /// Digest: costs one 401 round-trip per connection before the nonce is known.
            case digest
            /// Whatever the server offers, the safest first (costs a 401 round-trip).
            case any
        }

        /// The root collection, which must exist: `webdavs://` (or `https://`) for HTTPS,
        /// `webdav://` (or `http://`) for plain HTTP. A password in it is never used.
        public var url: URL
        /// The user name; `nil` for no authentication.
        public var user: String?
        /// The password. Never printed.
        public var password: String?
        /// The authentication schemes allowed. Default ``Authentication/basic``.
        public var authentication: Authentication
        /// A PEM file of certificate authorities to trust for HTTPS instead of the system's.
        public var caFile: String?
        /// How long establishing a connection (TCP and TLS) may take. Default 15 seconds.
        public var connectTimeout: Duration
        /// A transfer slower than ``lowSpeedLimit`` bytes per second for this long is abandoned
        /// (and retried). Default 30 seconds.
        public var lowSpeedTime: Duration
        /// The throughput, in bytes per second, below which ``lowSpeedTime`` starts counting. Default 1.
        public var lowSpeedLimit: Int
        /// How idempotent requests that failed in a retryable way (a dropped connection, a
        /// timeout, 423, 429, 5xx) are retried. Default 4 attempts.
        public var retryPolicy: RetryPolicy
        /// How many connections (one libcurl handle each, so parallel requests) the store opens
        /// at most. Default 4.
        public var connectionCount: Int

        /// A configuration for the collection at `url`, with the defaults above for everything
        /// else. `user` defaults to the URL's user, if it names one.
        public init(url: URL, user: String? = nil, password: String? = nil, authentication: Authentication = .basic) {
            self.url = url
            self.user = user ?? url.user(percentEncoded: false)
            self.password = password
            self.authentication = authentication
            caFile = nil
            connectTimeout = .seconds(15)
            lowSpeedTime = .seconds(30)
            lowSpeedLimit = 1
            retryPolicy = RetryPolicy()
            connectionCount = 4
        }

        /// The URL and every setting; a set password shows as `<redacted>`.
        public var description: String {
            var parts = [url.redactingPassword]
            if let user { parts.append("user=\(user)") }
            if password != nil { parts.append("password=<redacted>") }
            parts.append("auth=\(authentication.rawValue)")
            if let caFile { parts.append("ca-file=\(caFile)") }
            parts.append("connect-timeout=\(connectTimeout) low-speed=\(lowSpeedLimit)B/s for \(lowSpeedTime)")
            parts.append("retries=\(retryPolicy.maximumAttempts) connections=\(connectionCount)")
            return parts.joined(separator: " ")
        }

        /// The libcurl options of every connection of the store.
        var curlOptions: CurlOptions {
            var options = CurlOptions()
            options.user = user
            options.password = password
            options.authentication = switch authentication {
            case .basic: .basic
            case .digest: .digest
            case .any: .any
            }
            options.caFile = caFile
            options.connectTimeout = connectTimeout
            options.lowSpeedTime = lowSpeedTime
            options.lowSpeedLimit = lowSpeedLimit
            return options
        }

        /// Checks the values the URL form checks as text, for a configuration built in code.
        /// - Throws: ``RemoteProtocol/RemoteStoreError/Code/unsupported`` naming the property.
        func validate() throws {
            guard connectionCount >= 1 else { throw Self.invalid("connectionCount", "\(connectionCount)", expected: "at least 1") }
            guard lowSpeedLimit >= 1 else { throw Self.invalid("lowSpeedLimit", "\(lowSpeedLimit)", expected: "at least 1") }
            for (name, value) in [("connectTimeout", connectTimeout), ("lowSpeedTime", lowSpeedTime)] where value <= .zero {
                throw Self.invalid(name, "\(value)", expected: "a positive duration")
            }
        }

        private static func invalid(_ property: String, _ value: String, expected: String) -> RemoteStoreError {
            RemoteStoreError(.unsupported, message: "the WebDAV configuration's \(property) (\(value)) is invalid; expected \(expected)")
        }
    }
}
