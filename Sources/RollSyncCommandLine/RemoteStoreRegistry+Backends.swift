import FileRemote
import InMemoryRemote
import RemoteProtocol
import SFTPRemote
import WebDAVRemote

extension RemoteStoreRegistry {
    /// A registry with every backend of ``registerRollSyncBackends()``.
    static func withRollSyncBackends() -> RemoteStoreRegistry {
        let registry = RemoteStoreRegistry()
        registry.registerRollSyncBackends()
        return registry
    }

    /// Registers every backend this build of `rollsync` ships: `file`, `memory`, `sftp`, `webdav` and `webdavs`.
    func registerRollSyncBackends() {
        register(FileRemoteStore.self)
        register(InMemoryRemoteStore.self)
        register(SFTPRemoteStore.self)
        register(WebDAVRemoteStore.self)
    }
}
