import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension S3RemoteStore {
    /// Where an ``S3RemoteStore`` lives and how it signs its requests: the typed form of the
    /// `s3://bucket/prefix?endpoint=…&region=…&style=path` URL (see
    /// ``init(url:settings:secrets:environment:)``).
    ///
    /// Secrets never go in here as text that could be printed: ``description`` shows the access
    /// key id's last four characters only, and never a secret key or session token.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// How the bucket is named in request URLs.
        public enum AddressingStyle: String, Sendable {
            /// `https://bucket.s3.region.amazonaws.com/key` for AWS endpoints and DNS-compatible
            /// bucket names; path style for every other endpoint. The default.
            case automatic = "auto"
            /// `https://endpoint/bucket/key`: what MinIO, Ceph RGW, Garage and moto expect.
            case path
            /// `https://bucket.endpoint/key`: AWS's preferred form, also R2 and Wasabi.
            case virtualHosted = "virtual"
        }

        /// Where the access key comes from.
        public enum CredentialsSource: Sendable, CustomStringConvertible {
            /// As the AWS CLI looks them up: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`
            /// (`AWS_SESSION_TOKEN`) when set, else the profile `AWS_PROFILE` (or `default`) of
            /// the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, `~/.aws/credentials`)
            /// and the config file (`AWS_CONFIG_FILE`, `~/.aws/config`).
            case standard
            /// That profile of the shared files, whatever the environment holds (like the AWS
            /// CLI's `--profile`).
            case profile(String)
            /// Keys given by the application.
            case keys(S3Credentials)

            public var description: String {
                switch self {
                case .standard: "standard (environment, then AWS_PROFILE or default profile)"
                case .profile(let name): "profile \(name)"
                case .keys(let keys): "keys \(keys)"
                }
            }
        }

        /// The bucket, which must exist.
        public var bucket: String
        /// The key prefix the store's root maps to, without leading or trailing `/` (empty: the
        /// bucket's root). The path `a/b` is the object `prefix/a/b`.
        public var prefix: String
        /// The service endpoint, such as `https://s3.eu-central-1.amazonaws.com` or
        /// `http://127.0.0.1:9000`; `nil` for AWS's endpoint of ``region`` (or the profile's
        /// `endpoint_url`, or `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`).
        public var endpoint: URL?
        /// The signing region; `nil` for `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's
        /// `region`, else `us-east-1`.
        public var region: String?
        /// How the bucket is named in URLs.
        public var addressingStyle: AddressingStyle
        /// Plain `http://` endpoints other than loopback are refused unless this is true:
        /// requests are signed, but bodies (your data, unless encrypted) travel in clear text.
        public var allowInsecureHTTP: Bool
        /// Where the access key comes from.
        public var credentials: CredentialsSource
        /// A PEM file of certificate authorities to trust instead of the system's.
        public var caFile: String?
        /// How many connections (and concurrent requests) the store uses at most. Default 8.
        public var connectionCount: Int
        /// How retryable failures (dropped connections, 500, 503 SlowDown, RequestTimeout) are retried.
        public var retryPolicy: RetryPolicy
        /// Files larger than this are uploaded in parts (multipart upload). Default 16 MiB.
        public var multipartThreshold: Int64
        /// The size of one part of a multipart upload or copy, at least 5 MiB. Default 8 MiB;
        /// memory use does not depend on it (parts stream from the file).
        public var partSize: Int64
        /// Copies of objects larger than this use multipart copy (UploadPartCopy). Default and
        /// maximum 5 GiB, S3's limit for CopyObject.
        public var copyThreshold: Int64
        /// How many parts of one upload are sent at once. Default 4.
        public var partConcurrency: Int
        /// How long establishing a connection may take.
        public var connectTimeout: Duration
        /// A transfer making no progress for this long is abandoned (and retried).
        public var lowSpeedTime: Duration
        /// The most keys one ListObjectsV2 page or one DeleteObjects request carries: 1,000, S3's
        /// limit for both. Not public: tests lower it to page through a few hundred objects.
        var keysPerRequest = 1_000

        /// The smallest part S3 accepts (except the last).
        public static let minimumPartSize: Int64 = 5 << 20
        /// The largest object CopyObject copies in one request.
        public static let maximumCopySize: Int64 = 5 << 30

        /// A configuration for `bucket`, with AWS defaults for everything else.
        public init(
            bucket: String,
            prefix: String = "",
            endpoint: URL? = nil,
            region: String? = nil,
            addressingStyle: AddressingStyle = .automatic,
            allowInsecureHTTP: Bool = false,
            credentials: CredentialsSource = .standard
        ) {
            self.bucket = bucket
            self.prefix = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
            self.endpoint = endpoint
            self.region = region
            self.addressingStyle = addressingStyle
            self.allowInsecureHTTP = allowInsecureHTTP
            self.credentials = credentials
            caFile = nil
            connectionCount = 8
            retryPolicy = RetryPolicy(maximumAttempts: 5)
            multipartThreshold = 16 << 20
            partSize = 8 << 20
            copyThreshold = Self.maximumCopySize
            partConcurrency = 4
            connectTimeout = .seconds(15)
            lowSpeedTime = .seconds(30)
        }

        public var description: String {
            var parts = ["s3://\(bucket)/\(prefix)"]
            if let endpoint { parts.append("endpoint=\(endpoint.absoluteString)") }
            if let region { parts.append("region=\(region)") }
            parts.append("style=\(addressingStyle.rawValue)")
            if allowInsecureHTTP { parts.append("allow-insecure-http=yes") }
            parts.append("credentials=\(credentials)")
            return parts.joined(separator: " ")
        }
    }
}

/// An access key: the id, the secret, and for temporary credentials the session token.
///
/// Printing it shows the id's last four characters only (as `aws configure list` does); the
/// secret and the token never appear in descriptions, errors or logs.
public struct S3Credentials: Sendable, CustomStringConvertible {
    /// The access key id (`AKIA…`).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Creates credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "access-key-id=****\(accessKeyID.suffix(4)) secret=<redacted>\(sessionToken == nil ? "" : " session-token=<redacted>")"
    }
}
