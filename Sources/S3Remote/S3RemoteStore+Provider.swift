import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension S3RemoteStore: RemoteStoreProvider {
    /// `s3`.
    public static let urlSchemes: Set<String> = ["s3"]

    /// The names of the secrets an S3 store reads from
    /// ``RemoteProtocol/RemoteStoreConfiguration/secrets``, with the `access-key-id` setting.
    public enum SecretName {
        /// `secret-access-key`: the secret of the `access-key-id` setting's key.
        public static let secretAccessKey = "secret-access-key"
        /// `session-token`: the session token of temporary credentials.
        public static let sessionToken = "session-token"
    }

    /// Every key of the URL's query and of ``RemoteProtocol/RemoteStoreConfiguration/settings``.
    static let knownSettings: Set<String> = [
        "endpoint", "region", "style", "profile", "allow-insecure-http", "access-key-id", "ca-file", "connections", "retries",
        "part-size", "multipart-threshold", "connect-timeout", "low-speed-time",
    ]

    /// Opens a store with ``init(configuration:environment:)`` and the process environment. No
    /// request is sent until the first call.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        try S3RemoteStore(configuration: configuration)
    }

    /// Opens a store for `configuration.url` (`s3://bucket/prefix?endpoint=…&region=…&style=path`).
    ///
    /// Query items and ``RemoteProtocol/RemoteStoreConfiguration/settings`` take the same keys
    /// (settings win): `endpoint`, `region`, `style` (`auto`, `path`, `virtual`), `profile`,
    /// `allow-insecure-http` (`yes`/`no`), `ca-file`, `connections`, `retries`, `part-size` and
    /// `multipart-threshold` (bytes), `connect-timeout` and `low-speed-time` (seconds), and
    /// `access-key-id` with the secrets ``SecretName`` (`secret-access-key`, `session-token`) for keys an
    /// application supplies itself. Otherwise credentials come from the environment and the AWS
    /// shared files (``Configuration/CredentialsSource/standard``).
    ///
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for an unusable URL, an unknown
    ///   setting or an invalid value; `authenticationFailed` if no credentials are found.
    public convenience init(
        configuration: RemoteStoreConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        try self.init(configuration: try Configuration(configuration), environment: environment)
    }
}

extension S3RemoteStore.Configuration {
    /// Reads an `s3://bucket/prefix?…` URL and its settings (see
    /// ``S3RemoteStore/init(configuration:environment:)-(RemoteStoreConfiguration,_)``).
    public init(_ configuration: RemoteStoreConfiguration) throws {
        let url = configuration.url
        guard configuration.scheme == "s3", let bucket = url.host(percentEncoded: false), !bucket.isEmpty else {
            throw RemoteStoreError(.unsupported, message: "an S3 remote is named s3://bucket/prefix, not \(url.absoluteString)")
        }
        guard url.user(percentEncoded: false) == nil, url.password(percentEncoded: false) == nil else {
            throw RemoteStoreError(
                .unsupported,
                message: "S3 credentials never go in the URL: use AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE or ~/.aws/credentials"
            )
        }
        var settings: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            settings[item.name] = item.value ?? ""
        }
        settings.merge(configuration.settings) { _, setting in setting }
        if let unknown = settings.keys.filter({ !S3RemoteStore.knownSettings.contains($0) }).sorted().first {
            throw RemoteStoreError(
                .unsupported,
                message: "unknown S3 setting '\(unknown)'; known settings: \(S3RemoteStore.knownSettings.sorted().joined(separator: ", "))"
            )
        }
        self.init(bucket: bucket, prefix: url.path(percentEncoded: false))
        let values = SettingValues(settings, backend: "S3")
        if let text = settings["endpoint"] {
            guard let endpoint = URL(string: text), endpoint.scheme != nil, endpoint.host() != nil else {
                throw values.invalid("endpoint", text, expected: "an http(s) URL")
            }
            self.endpoint = endpoint
        }
        region = settings["region"]
        if let text = settings["style"] {
            guard let style = AddressingStyle(rawValue: text.lowercased()) else {
                throw values.invalid("style", text, expected: "auto, path or virtual")
            }
            addressingStyle = style
        }
        if let text = settings["allow-insecure-http"] {
            guard ["yes", "no", "true", "false"].contains(text.lowercased()) else {
                throw values.invalid("allow-insecure-http", text, expected: "yes or no")
            }
            allowInsecureHTTP = ["yes", "true"].contains(text.lowercased())
        }
        if let id = settings["access-key-id"] {
            guard let secret = configuration.secrets[S3RemoteStore.SecretName.secretAccessKey] else {
                throw RemoteStoreError(
                    .unsupported, message: "the setting access-key-id needs the secret \(S3RemoteStore.SecretName.secretAccessKey)"
                )
            }
            credentials = .keys(
                S3Credentials(
                    accessKeyID: id, secretAccessKey: secret, sessionToken: configuration.secrets[S3RemoteStore.SecretName.sessionToken]
                )
            )
        } else if let profile = settings["profile"] {
            credentials = .profile(profile)
        }
        caFile = settings["ca-file"]
        connectionCount = try values.count("connections", minimum: 1) ?? connectionCount
        if let attempts = try values.count("retries", minimum: 1) {
            retryPolicy = RetryPolicy(maximumAttempts: attempts)
        }
        partSize = try values.count("part-size", minimum: Self.minimumPartSize) ?? partSize
        multipartThreshold = try values.count("multipart-threshold", minimum: Self.minimumPartSize) ?? multipartThreshold
        connectTimeout = try values.seconds("connect-timeout") ?? connectTimeout
        lowSpeedTime = try values.seconds("low-speed-time") ?? lowSpeedTime
    }
}
