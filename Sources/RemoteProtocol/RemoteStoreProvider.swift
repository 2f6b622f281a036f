/// A backend that can be opened from a URL, so it can be registered in a ``RemoteStoreRegistry``.
///
/// ```swift
/// extension MyS3Store: RemoteStoreProvider {
///     public static let urlSchemes: Set<String> = ["s3"]
///     public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
///         try MyS3Store(bucketURL: configuration.url, accessKey: configuration.secrets["access-key"])
///     }
/// }
/// RemoteStoreRegistry.shared.register(MyS3Store.self)
/// ```
public protocol RemoteStoreProvider: SendableMetatype {
    /// The lower-case URL schemes this backend opens (`["sftp"]`, `["webdav", "webdavs"]`).
    static var urlSchemes: Set<String> { get }

    /// The backend's name in ``RemoteStoreError/backend``; by default the alphabetically first of
    /// ``urlSchemes`` (`"webdav"` for `["webdav", "webdavs"]`).
    static var backendName: String { get }

    /// Opens a store for `configuration.url`.
    ///
    /// - Throws: ``RemoteStoreError``: ``RemoteStoreError/Code/unsupported`` for a URL the backend
    ///   cannot use (naming what is wrong), or the backend's connection errors.
    static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore
}

extension RemoteStoreProvider {
    public static var backendName: String { urlSchemes.min() ?? String(describing: Self.self) }
}
