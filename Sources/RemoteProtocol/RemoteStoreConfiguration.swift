import Foundation

/// Everything needed to open a ``RemoteStore`` from a URL: the URL itself, plain settings, and
/// secrets kept apart so they are never printed.
///
/// Settings are backend-specific string values (for example `known-hosts` or `identity-file` for
/// SFTP, `user` or `ca-file` for WebDAV); each backend documents the keys it reads. Secrets
/// (passwords, passphrases) go in ``secrets`` only, never in the URL:
/// ``RemoteStoreRegistry/makeStore(for:)-(RemoteStoreConfiguration)`` refuses a URL with a password in it.
public struct RemoteStoreConfiguration: Sendable, CustomStringConvertible {
    /// The store's location, such as `file:///srv/sync` or `sftp://alice@host:22/sync`.
    public var url: URL
    /// Plain, printable settings.
    public var settings: [String: String]
    /// Passwords and passphrases. Never printed, logged or put in errors.
    public var secrets: [String: String]

    /// Creates a configuration.
    public init(url: URL, settings: [String: String] = [:], secrets: [String: String] = [:]) {
        self.url = url
        self.settings = settings
        self.secrets = secrets
    }

    /// The URL's scheme in lower case, or the empty string.
    public var scheme: String { url.scheme?.lowercased() ?? "" }

    /// The URL, settings, and only the *names* of the secrets.
    public var description: String {
        let secretNames = secrets.keys.sorted().map { "\($0)=<redacted>" }
        let settingText = settings.keys.sorted().map { "\($0)=\(settings[$0] ?? "")" }
        return "\(url.redactingPassword) \((settingText + secretNames).joined(separator: " "))"
            .trimmingCharacters(in: .whitespaces)
    }
}

extension URL {
    /// The URL with any password replaced by `<redacted>`, safe to print.
    public var redactingPassword: String {
        guard password(percentEncoded: true) != nil,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        else { return absoluteString }
        components.password = "redacted"
        return components.string ?? "<url>"
    }
}
