import Foundation
import InMemoryRemote
import RemoteProtocol

/// A store that forwards every call to an ``InMemoryRemoteStore``. The deliberately broken stores
/// of ``BrokenStores`` each replace one behaviour and inherit the rest from here, so the defect is
/// the only difference from a correct store.
protocol ForwardingStore: RemoteStore {
    var base: InMemoryRemoteStore { get }
}

extension ForwardingStore {
    var capabilities: RemoteCapabilities { base.capabilities }
    func exists(_ path: RemotePath) async throws -> RemoteItem? { try await base.exists(path) }
    func createDirectory(at path: RemotePath) async throws { try await base.createDirectory(at: path) }
    func upload(contentsOf localFile: URL, to path: RemotePath) async throws { try await base.upload(contentsOf: localFile, to: path) }
    func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        try await base.createExclusively(contentsOf: localFile, at: path)
    }
    func download(_ path: RemotePath, to localFile: URL) async throws { try await base.download(path, to: localFile) }
    func downloadImmutableFile(_ path: RemotePath, to localFile: URL) async throws {
        try await base.downloadImmutableFile(path, to: localFile)
    }
    func copy(_ source: RemotePath, to destination: RemotePath) async throws { try await base.copy(source, to: destination) }
    func list(_ directory: RemotePath) async throws -> [RemoteItem] { try await base.list(directory) }
    func delete(_ path: RemotePath) async throws { try await base.delete(path) }
    func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] { try await base.temporaryFiles(in: directory) }
    func deleteTemporaryFile(_ file: TemporaryFile) async throws { try await base.deleteTemporaryFile(file) }
    func changeNotifications(in directory: RemotePath) -> AsyncStream<Void>? { base.changeNotifications(in: directory) }
}

/// Forwards everything unchanged: proves that the forwarding itself is correct. Forwarders made
/// with the same `base` share their storage, like two connections to one server.
struct FaithfulForwarder: ForwardingStore {
    let base: InMemoryRemoteStore
}
