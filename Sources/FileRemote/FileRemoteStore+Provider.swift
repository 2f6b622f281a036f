import Foundation
import RemoteProtocol

/// Opening a ``FileRemoteStore`` from a URL, and its place in ``RemoteStoreRegistry``.
///
/// The accepted form is `file:///absolute/path` (or `file://localhost/absolute/path`, see
/// `FileRemoteStore+Configuration.swift`). The store reads no settings and no secrets from its
/// ``RemoteStoreConfiguration``.
extension FileRemoteStore: RemoteStoreProvider {
    /// `file`.
    public static let urlSchemes: Set<String> = ["file"]

    /// Opens the folder of `configuration.url`; see ``init(root:)`` for the rules and errors.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        try FileRemoteStore(root: configuration.url)
    }
}
