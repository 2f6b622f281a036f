import Foundation
import RemoteProtocol
import Synchronization
import SyncCore
import TestSupport

/// One client's encryption setup: its own key directory, and a password prompt the test answers.
final class EncryptionSetup: Sendable {
    let keys: TemporaryDirectory
    private let state: Mutex<(answer: String?, reasons: [EncryptionDecisions.PasswordRequestReason])>

    /// A setup whose prompt answers `password` (nil: no password).
    init(password: String?) throws {
        keys = try TemporaryDirectory()
        state = Mutex((password, []))
    }

    /// Changes the prompt's answer.
    func answer(_ password: String?) {
        state.withLock { $0.answer = password }
    }

    /// Why the password was asked for, in order (new applications are not counted).
    var reasons: [EncryptionDecisions.PasswordRequestReason] {
        state.withLock { $0.reasons }
    }

    /// The provider the client's application manager uses (cheap scrypt, for tests only).
    var provider: EncryptingCodecProvider {
        EncryptingCodecProvider(
            keyStore: keyStore,
            decisions: EncryptionDecisions(
                newApplicationPassword: { _ in self.state.withLock { $0.answer }.flatMap(EncryptionPassword.init) },
                existingApplicationPassword: { _, reason in
                    self.state.withLock { state in
                        state.reasons.append(reason)
                        return state.answer.flatMap(EncryptionPassword.init)
                    }
                }
            ),
            keyDerivation: .weakForTestingOnly
        )
    }

    /// The client's cached data keys.
    var keyStore: DataKeyFileStore {
        DataKeyFileStore(directory: keys.url.appendingPathComponent("keys"))
    }

    /// A fresh application manager for `client` on `store`, as after a restart of the application.
    func applicationManager(_ client: String, store: any RemoteStore) throws -> ApplicationSyncManager {
        ApplicationSyncManager(
            store: store,
            applicationID: TestClient.applicationID,
            device: DeviceInfo(clientID: try SyncIdentifier(client), description: "test client \(client)", registeredAt: Date()),
            codecProvider: provider
        )
    }
}

extension TestRemote {
    /// Every file below `directory`, recursively, as paths.
    func allFiles(under directory: RemotePath = "com.example.notes") async throws -> [RemotePath] {
        var files: [RemotePath] = []
        for item in try await store.list(directory) {
            let path = directory / item.name
            files += item.isDirectory ? try await allFiles(under: path) : [path]
        }
        return files.sorted { $0.string < $1.string }
    }
}

extension Data {
    /// True if `needle`'s UTF-8 bytes occur anywhere in the data.
    func contains(text needle: String) -> Bool {
        range(of: Data(needle.utf8)) != nil
    }
}
