import RemoteProtocol

extension SFTPRemoteStore: RemoteStoreProvider {
    /// `sftp`.
    public static let urlSchemes: Set<String> = ["sftp"]

    /// Opens an ``SFTPRemoteStore`` with the default retry policy; see
    /// ``SFTPRemoteStore/init(configuration:retryPolicy:)``.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        try await SFTPRemoteStore(configuration: configuration)
    }
}
