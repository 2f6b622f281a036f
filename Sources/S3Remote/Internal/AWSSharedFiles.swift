import Foundation
import RemoteProtocol

/// The AWS CLI's shared files, read as the CLI reads them: the credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`, sections `[name]`) and the config
/// file (`AWS_CONFIG_FILE`, default `~/.aws/config`, sections `[default]` and `[profile name]`).
/// Lines are `key = value`; `#` and `;` start comments; keys are case-insensitive.
struct AWSSharedFiles: Sendable {
    /// The credentials file's sections.
    var credentials: [String: [String: String]] = [:]
    /// The config file's sections, keyed by profile name (`profile ` removed).
    var config: [String: [String: String]] = [:]

    /// Reads both files (a missing file reads as empty).
    init(environment: [String: String]) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let credentialsPath = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let configPath = environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        credentials = Self.sections(of: Self.read(credentialsPath), stripping: nil)
        config = Self.sections(of: Self.read(configPath), stripping: "profile ")
    }

    /// A value of `profile`: the credentials file first, then the config file.
    func value(_ key: String, profile: String) -> String? {
        credentials[profile]?[key] ?? config[profile]?[key]
    }

    /// True if either file has a section for `profile`.
    func hasProfile(_ profile: String) -> Bool {
        credentials[profile] != nil || config[profile] != nil
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Parses INI text. Nested `key =` blocks (a service's settings, `s3 =\n  addressing_style = path`)
    /// are kept as `s3.addressing_style`.
    static func sections(of text: String, stripping sectionPrefix: String?) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        var current: String?
        var nestedBlock: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let isIndented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                var name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if let sectionPrefix, name.hasPrefix(sectionPrefix) {
                    name = String(name.dropFirst(sectionPrefix.count)).trimmingCharacters(in: .whitespaces)
                }
                current = name
                nestedBlock = nil
                result[name, default: [:]] = result[name] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if !isIndented { nestedBlock = value.isEmpty ? key : nil }
            let fullKey = isIndented ? nestedBlock.map { "\($0).\(key)" } ?? key : key
            result[current]?[fullKey] = value
        }
        return result
    }
}

/// The settings an ``S3RemoteStore`` actually uses, after the URL, the settings and the AWS
/// environment and shared files have been combined.
struct ResolvedS3Settings: Sendable {
    var bucket: String
    var prefix: String
    var endpoint: URL
    var region: String
    var pathStyle: Bool
    var credentials: S3Credentials

    /// Resolves `configuration` with the AWS CLI's rules.
    /// - Throws: `unsupported` for a missing key, a prefix with a `.` or `..` segment (HTTP clients
    ///   rewrite those in the path they send, so the key and its signature would not match), a bad
    ///   endpoint or one with a user or password in it, or plain HTTP to a non-loopback host
    ///   without ``S3RemoteStore/Configuration/allowInsecureHTTP``; `authenticationFailed` when no
    ///   credentials can be found (naming where they were looked for).
    init(_ configuration: S3RemoteStore.Configuration, environment: [String: String]) throws {
        guard Self.isValidBucketName(configuration.bucket) else {
            throw RemoteStoreError(.unsupported, message: "'\(configuration.bucket)' is not a valid S3 bucket name")
        }
        if configuration.prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) {
            throw RemoteStoreError(
                .unsupported, message: "the S3 prefix '\(configuration.prefix)' has a '.' or '..' segment: name the folder without them"
            )
        }
        bucket = configuration.bucket
        prefix = configuration.prefix
        let files = AWSSharedFiles(environment: environment)
        let profile: String
        switch configuration.credentials {
        case .profile(let name): profile = name
        default: profile = environment["AWS_PROFILE"] ?? environment["AWS_DEFAULT_PROFILE"] ?? "default"
        }
        if case .profile(let name) = configuration.credentials, !files.hasProfile(name) {
            throw RemoteStoreError(
                .authenticationFailed,
                message: "the AWS profile '\(name)' is in neither the shared credentials file nor the config file"
            )
        }
        region = configuration.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"]
            ?? files.value("region", profile: profile) ?? "us-east-1"
        let endpointText = configuration.endpoint?.absoluteString ?? environment["AWS_ENDPOINT_URL_S3"]
            ?? environment["AWS_ENDPOINT_URL"] ?? files.value("s3.endpoint_url", profile: profile)
            ?? files.value("endpoint_url", profile: profile)
        let isAWS = endpointText == nil
        guard let endpoint = URL(string: endpointText ?? "https://s3.\(region).amazonaws.com"),
            let scheme = endpoint.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = endpoint.host(), !host.isEmpty
        else {
            throw RemoteStoreError(.unsupported, message: "the S3 endpoint '\(endpointText ?? "")' is not an http(s) URL")
        }
        if endpoint.user != nil || endpoint.password != nil {
            throw RemoteStoreError(
                .unsupported, message: "the S3 endpoint must not hold a user or password: give the keys as credentials"
            )
        }
        if scheme == "http" && !configuration.allowInsecureHTTP && !Self.isLoopback(host) {
            throw RemoteStoreError(
                .unsupported,
                message: "the S3 endpoint \(endpoint.absoluteString) is plain HTTP to a host that is not loopback; "
                    + "use https, or allow it explicitly (allow-insecure-http=yes)"
            )
        }
        self.endpoint = endpoint
        switch configuration.addressingStyle {
        case .path: pathStyle = true
        case .virtualHosted: pathStyle = false
        case .automatic:
            let style = files.value("s3.addressing_style", profile: profile)
            pathStyle = style == "path" || (style != "virtual" && (!isAWS || configuration.bucket.contains(".")))
        }
        credentials = try Self.credentials(configuration.credentials, profile: profile, files: files, environment: environment)
    }

    private static func credentials(
        _ source: S3RemoteStore.Configuration.CredentialsSource,
        profile: String,
        files: AWSSharedFiles,
        environment: [String: String]
    ) throws -> S3Credentials {
        switch source {
        case .keys(let keys):
            return keys
        case .standard:
            if let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"], !id.isEmpty {
                return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"])
            }
        case .profile:
            break
        }
        if let id = files.value("aws_access_key_id", profile: profile),
            let secret = files.value("aws_secret_access_key", profile: profile)
        {
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: files.value("aws_session_token", profile: profile))
        }
        throw RemoteStoreError(
            .authenticationFailed,
            message: "no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give the profile '\(profile)' "
                + "aws_access_key_id and aws_secret_access_key in ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE) "
                + "or ~/.aws/config (AWS_CONFIG_FILE)"
        )
    }

    /// The base URL of the bucket (path style: endpoint + `/bucket`; virtual-hosted: the bucket
    /// as the first label of the host), without a trailing slash.
    var bucketURL: String {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        if pathStyle {
            components.percentEncodedPath = path + "/" + S3Key.uriEncode(bucket, keepingSlashes: false)
        } else {
            components.host = bucket + "." + (components.host ?? "")
            components.percentEncodedPath = path
        }
        components.query = nil
        return components.string ?? endpoint.absoluteString
    }

    /// True for `localhost`, 127.0.0.0/8 and `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// S3's rules: 3 to 63 characters of lower-case letters, digits, `.` and `-`, starting and
    /// ending with a letter or digit.
    static func isValidBucketName(_ name: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard (3...63).contains(name.count), name.allSatisfy(allowed.contains),
            let first = name.first, let last = name.last, first != "." && first != "-", last != "." && last != "-"
        else { return false }
        return true
    }
}
