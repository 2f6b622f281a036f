import FileRemote
import InMemoryRemote
import RemoteProtocol
import SFTPRemote

extension RemoteStoreRegistry {
    /// Registers every backend this build of `rollsync` ships: `file`, `memory` and `sftp`.
    func registerRollSyncBackends() {
        register(FileRemoteStore.self)
        register(InMemoryRemoteStore.self)
        register(SFTPRemoteStore.self)
    }
}
