import FileRemote
import InMemoryRemote
import RemoteProtocol
import S3Remote
import SFTPRemote
import WebDAVRemote

extension RemoteStoreRegistry {
    /// A registry with every backend of ``registerRollSyncBackends()``.
    static func withRollSyncBackends() -> RemoteStoreRegistry {
        let registry = RemoteStoreRegistry()
        registry.registerRollSyncBackends()
        return registry
    }

    /// Registers every backend this build of `rollsync` ships: `file`, `memory`, `sftp`, `webdav`, `webdavs` and `s3`.
    func registerRollSyncBackends() {
        register(FileRemoteStore.self)
        register(InMemoryRemoteStore.self)
        register(SFTPRemoteStore.self)
        register(WebDAVRemoteStore.self)
        register(S3RemoteStore.self)
    }
}
