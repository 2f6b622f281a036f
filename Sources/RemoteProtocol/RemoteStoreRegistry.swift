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

    /// Per scheme: the backend's name (for ``RemoteStoreError/backend``) and its factory.
    private let factories = Mutex<[String: (backend: String, factory: Factory)]>([:])

    /// Creates an empty registry (use ``shared`` unless you need an isolated one).
    public init() {}

    /// Registers `factory` for `scheme` (case-insensitive), replacing any earlier registration;
    /// its errors of opening are attributed to the backend named `scheme`.
    public func register(scheme: String, factory: @escaping Factory) {
        register(scheme: scheme, backend: scheme.lowercased(), factory: factory)
    }

    /// Registers a backend type for every scheme it declares; its errors of opening are
    /// attributed to its ``RemoteStoreProvider/backendName``.
    public func register<Provider: RemoteStoreProvider>(_ provider: Provider.Type) {
        for scheme in provider.urlSchemes {
            register(scheme: scheme, backend: Provider.backendName) { try await Provider.makeStore(for: $0) }
        }
    }

    private func register(scheme: String, backend: String, factory: @escaping Factory) {
        factories.withLock { $0[scheme.lowercased()] = (backend, factory) }
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
    ///   printed); otherwise whatever the backend throws. Each error names its
    ///   ``RemoteStoreError/backend`` (the scheme's, when none is registered).
    public func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        let scheme = configuration.scheme
        let registered = factories.withLock { $0[scheme] }
        if configuration.url.password(percentEncoded: true) != nil {
            throw RemoteStoreError(
                .unsupported,
                message: "the URL \(configuration.url.redactingPassword) contains a password; "
                    + "pass it as a secret instead, so it never appears in logs or command lines",
                backend: registered?.backend ?? scheme
            )
        }
        guard let (backend, factory) = registered else {
            let known = schemes.isEmpty ? "none" : schemes.joined(separator: ", ")
            throw RemoteStoreError(
                .unsupported,
                message: "no backend is registered for the URL scheme '\(scheme)' "
                    + "(\(configuration.url.redactingPassword)); registered schemes: \(known)"
                    + (Self.registrationHint(for: scheme).map { "; \($0)" } ?? ""),
                backend: scheme
            )
        }
        do {
            return try await factory(configuration)
        } catch let error as RemoteStoreError {
            throw error.attributed(to: backend)
        }
    }

    /// What to write to register the backend RollingSync ships for `scheme`, if it ships one.
    static func registrationHint(for scheme: String) -> String? {
        let backends = ["file": "FileRemote", "sftp": "SFTPRemote", "webdav": "WebDAVRemote", "webdavs": "WebDAVRemote", "s3": "S3Remote"]
        guard let module = backends[scheme] else { return nil }
        let type = module.replacingOccurrences(of: "Remote", with: "RemoteStore")
        return "register it once before opening a store: `import \(module)` and `RemoteStoreRegistry.shared.register(\(type).self)`"
    }
}
