import Foundation
import Synchronization

/// Maps URL schemes to backends, so an application picks its storage with a URL
/// (`memory://name`, `file:///path`, `sftp://…`, `webdav(s)://…`) and third parties add their own.
///
/// Backends live in their own modules, so each registers explicitly; for example
/// `RemoteStoreRegistry.shared.register(FileRemoteStore.self)`. Registering a scheme again replaces
/// the earlier factory, which lets tests and applications substitute their own. The registry is
/// thread-safe.
public final class RemoteStoreRegistry: Sendable {
    /// Opens a store from a configuration whose scheme it was registered for.
    public typealias Factory = @Sendable (RemoteStoreConfiguration) async throws -> any RemoteStore

    /// The process-wide registry.
    public static let shared = RemoteStoreRegistry()

    private let factories = Mutex<[String: Factory]>([:])

    /// Creates an empty registry (use ``shared`` unless you need an isolated one).
    public init() {}

    /// Registers `factory` for `scheme` (case-insensitive), replacing any earlier registration.
    public func register(scheme: String, factory: @escaping Factory) {
        factories.withLock { $0[scheme.lowercased()] = factory }
    }

    /// Registers a backend type for every scheme it declares.
    public func register<Provider: RemoteStoreProvider>(_ provider: Provider.Type) {
        for scheme in provider.urlSchemes {
            register(scheme: scheme) { try await Provider.makeStore(for: $0) }
        }
    }

    /// The registered schemes, sorted.
    public var schemes: [String] {
        factories.withLock { $0.keys.sorted() }
    }

    /// Opens the store for `url` with no settings or secrets.
    public func makeStore(for url: URL) async throws -> any RemoteStore {
        try await makeStore(for: RemoteStoreConfiguration(url: url))
    }

    /// Opens the store for `configuration.url` with the backend registered for its scheme.
    ///
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/unsupported`` if no backend
    ///   is registered for the scheme (the message lists those that are), or if the URL carries a
    ///   password (secrets belong in ``RemoteStoreConfiguration/secrets``, where they are never
    ///   printed); otherwise whatever the backend throws.
    public func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        if configuration.url.password(percentEncoded: true) != nil {
            throw RemoteStoreError(
                .unsupported,
                message: "the URL \(configuration.url.redactingPassword) contains a password; "
                    + "pass it as a secret instead, so it never appears in logs or command lines"
            )
        }
        let scheme = configuration.scheme
        guard let factory = factories.withLock({ $0[scheme] }) else {
            let known = schemes.isEmpty ? "none" : schemes.joined(separator: ", ")
            throw RemoteStoreError(
                .unsupported,
                message: "no backend is registered for the URL scheme '\(scheme)' "
                    + "(\(configuration.url.redactingPassword)); registered schemes: \(known)"
                    + (Self.registrationHint(for: scheme).map { "; \($0)" } ?? "")
            )
        }
        return try await factory(configuration)
    }

    /// What to write to register the backend RollingSync ships for `scheme`, if it ships one.
    static func registrationHint(for scheme: String) -> String? {
        let backends = ["file": "FileRemote", "sftp": "SFTPRemote", "webdav": "WebDAVRemote", "webdavs": "WebDAVRemote", "s3": "S3Remote"]
        guard let module = backends[scheme] else { return nil }
        let type = module.replacingOccurrences(of: "Remote", with: "RemoteStore")
        return "register it once before opening a store: `import \(module)` and `RemoteStoreRegistry.shared.register(\(type).self)`"
    }
}
