import Foundation
import RemoteProtocol
import TestSupport
import WebDAVRemote

extension PrivateApacheServer {
    /// A store on the server's root with retries disabled, so a failure shows at once.
    func store() throws -> WebDAVRemoteStore {
        try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: URL(string: url)!,
                settings: ["user": Self.user, "retries": "1"],
                secrets: ["password": Self.password]
            )
        )
    }
}
