import FileRemote
import InMemoryRemote
import RemoteProtocol
import SFTPRemote
import WebDAVRemote

extension RemoteStoreRegistry {
    /// Registers every backend this build of `rollsync` ships: `file`, `memory`, `sftp`, `webdav` and `webdavs`.
    func registerRollSyncBackends() {
        register(FileRemoteStore.self)
        register(InMemoryRemoteStore.self)
        register(SFTPRemoteStore.self)
        register(WebDAVRemoteStore.self)
    }
}
