import Foundation
import RemoteProtocol
import Synchronization

extension InMemoryRemoteStore: RemoteStoreProvider {
    /// The stores returned by ``named(_:)``, which live as long as the process.
    private static let namedStores = Mutex<[String: InMemoryRemoteStore]>([:])

    /// The process-wide store called `name`, created empty (with the default capabilities and no
    /// latency) on first use. Every call with the same name returns the same instance, so two
    /// clients of one test share a store; names are case-sensitive.
    public static func named(_ name: String) -> InMemoryRemoteStore {
        namedStores.withLock { stores in
            if let store = stores[name] { return store }
            let store = InMemoryRemoteStore()
            stores[name] = store
            return store
        }
    }

    /// `memory`.
    public static let urlSchemes: Set<String> = ["memory"]

    /// Opens ``named(_:)`` for a `memory://name` URL (the name is the URL's host, used as
    /// written). Register with `RemoteStoreRegistry.shared.register(InMemoryRemoteStore.self)`.
    ///
    /// - Throws: `RemoteStoreError` with code `unsupported` for a URL without a name, or with a
    ///   path, query or fragment after it.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        let url = configuration.url
        guard let name = url.host(percentEncoded: false), !name.isEmpty,
            url.path(percentEncoded: false).isEmpty || url.path(percentEncoded: false) == "/",
            url.query == nil, url.fragment == nil
        else {
            throw RemoteStoreError(
                .unsupported,
                message: "an in-memory store URL has the form memory://name, not \(url.redactingPassword)"
            )
        }
        return named(name)
    }
}
