import Foundation
import RemoteProtocol

extension WebDAVRemoteStore: RemoteStoreProvider {
    /// `webdav` (HTTP) and `webdavs` (HTTPS). Plain `http`/`https` are not registered, since other
    /// backends may claim them; an application that wants them registers them itself:
    /// `RemoteStoreRegistry.shared.register(scheme: "https") { try await WebDAVRemoteStore.makeStore(for: $0) }`.
    public static let urlSchemes: Set<String> = ["webdav", "webdavs"]

    /// Opens a store with ``init(configuration:environment:)`` and the process environment. No
    /// request is sent until the first call.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        try WebDAVRemoteStore(configuration: configuration)
    }
}
