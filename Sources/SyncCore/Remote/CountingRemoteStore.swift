import Foundation
import RemoteProtocol
import Synchronization

/// A ``RemoteStore`` decorator that counts the requests made through it and the bytes moved, for
/// any backend: the sync reports use it, and so can applications and benchmarks.
///
/// Every call of a primitive counts as one request, failed calls included. Bytes are the sizes of
/// the local files uploaded and of the files downloaded (copies happen on the server and move no
/// bytes through the client as far as this store can tell).
public final class CountingRemoteStore: RemoteStore {
    /// What was counted so far.
    public struct Counts: Sendable, Hashable {
        /// Requests made, failed ones included.
        public var requests = 0
        /// Bytes of the local files uploaded successfully.
        public var bytesUploaded: Int64 = 0
        /// Bytes of the files downloaded successfully.
        public var bytesDownloaded: Int64 = 0

        /// No requests, no bytes.
        public init() {}
    }

    /// The store the calls go to.
    public let base: any RemoteStore
    private let state = Mutex(Counts())

    /// Counts the calls made to `base` through this store.
    public init(_ base: any RemoteStore) {
        self.base = base
    }

    /// The counts so far.
    public var counts: Counts { state.withLock { $0 } }

    public var capabilities: RemoteCapabilities { base.capabilities }

    public func exists(_ path: RemotePath) async throws -> RemoteItem? {
        count()
        return try await base.exists(path)
    }

    public func createDirectory(at path: RemotePath) async throws {
        count()
        try await base.createDirectory(at: path)
    }

    public func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        count()
        try await base.upload(contentsOf: localFile, to: path)
        let size = Self.size(of: localFile)
        state.withLock { $0.bytesUploaded += size }
    }

    public func download(_ path: RemotePath, to localFile: URL) async throws {
        count()
        try await base.download(path, to: localFile)
        let size = Self.size(of: localFile)
        state.withLock { $0.bytesDownloaded += size }
    }

    public func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        count()
        try await base.copy(source, to: destination)
    }

    public func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        count()
        return try await base.list(directory)
    }

    public func delete(_ path: RemotePath) async throws {
        count()
        try await base.delete(path)
    }

    public func close() async {
        await base.close()
    }

    private func count() {
        state.withLock { $0.requests += 1 }
    }

    private static func size(of file: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
