import Foundation
import Logging
import RemoteProtocol
import Synchronization

/// A ``RemoteStore`` decorator that counts the requests made through it and the bytes moved, for
/// any backend: the sync reports use it, and so can applications and benchmarks.
///
/// ``Counts/requests`` counts what the server sees: the protocol requests each call made (HTTP
/// requests, SFTP operations), as the backend reports them through ``RemoteRequestCounter``;
/// a call to a backend that reports nothing (a folder, the in-memory store, most third-party
/// backends) counts as one. ``Counts/storeCalls`` counts the calls of the primitives, and
/// ``Counts/writeCalls`` those among them that change the remote. Failed calls count in all three. Bytes are the sizes of the local files uploaded and of the files downloaded
/// (copies happen on the server and move no bytes through the client as far as this store can
/// tell). Each call is also logged at `debug` to `logger`: the primitive, the remote path, the
/// requests and how many of them were retries, bytes, duration and outcome.
package final class CountingRemoteStore: RemoteStore {
    /// What was counted so far.
    package struct Counts: Sendable, Hashable {
        /// Protocol requests made, failed ones included (one per call for a backend that does not
        /// report them).
        package var requests = 0
        /// The requests among ``requests`` that retried a call after a transient failure, as the
        /// backend reports them (0 for a backend that does not).
        package var retriedRequests = 0
        /// Calls of the store's primitives, failed ones included.
        package var storeCalls = 0
        /// The calls among ``storeCalls`` that change the remote: uploads, copies, deletions and
        /// directory creations (object stores bill them above reads).
        package var writeCalls = 0
        /// Bytes of the local files uploaded successfully.
        package var bytesUploaded: Int64 = 0
        /// Bytes of the files downloaded successfully.
        package var bytesDownloaded: Int64 = 0

        /// No requests, no bytes.
        package init() {}
    }

    /// The store the calls go to.
    package let base: any RemoteStore
    private let state = Mutex(Counts())

    private let logger: Logger

    /// Counts (and logs to `logger`, by default nowhere) the calls made to `base` through this store.
    package init(_ base: any RemoteStore, logger: Logger = Logger(label: "rollingsync", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.base = base
        self.logger = logger
    }

    /// The counts so far.
    package var counts: Counts { state.withLock { $0 } }

    package var capabilities: RemoteCapabilities { base.capabilities }

    package var backendName: String? { base.backendName }

    package func exists(_ path: RemotePath) async throws -> RemoteItem? {
        try await request("exists", path) { try await base.exists(path) }
    }

    package func createDirectory(at path: RemotePath) async throws {
        try await request("createDirectory", path, writes: true) { try await base.createDirectory(at: path) }
    }

    package func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        let size = Self.size(of: localFile)
        try await request("upload", path, bytes: size, writes: true) { try await base.upload(contentsOf: localFile, to: path) }
        state.withLock { $0.bytesUploaded += size }
    }

    package func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        let size = Self.size(of: localFile)
        try await request("upload", path, bytes: size, writes: true) { try await base.createExclusively(contentsOf: localFile, at: path) }
        state.withLock { $0.bytesUploaded += size }
    }

    package func download(_ path: RemotePath, to localFile: URL) async throws {
        try await request("download", path, bytes: nil) { try await base.download(path, to: localFile) }
        let size = Self.size(of: localFile)
        state.withLock { $0.bytesDownloaded += size }
    }

    package func downloadImmutableFile(_ path: RemotePath, to localFile: URL) async throws {
        try await request("download", path, bytes: nil) { try await base.downloadImmutableFile(path, to: localFile) }
        let size = Self.size(of: localFile)
        state.withLock { $0.bytesDownloaded += size }
    }

    package func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] {
        try await request("list temporary files", directory, bytes: nil) { try await base.temporaryFiles(in: directory) }
    }

    package func deleteTemporaryFile(_ file: TemporaryFile) async throws {
        try await request("delete temporary file", file.directory, writes: true) { try await base.deleteTemporaryFile(file) }
    }

    package func changeNotifications(in directory: RemotePath) -> AsyncStream<Void>? {
        base.changeNotifications(in: directory)
    }

    package func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        try await request("copy", source, writes: true) { try await base.copy(source, to: destination) }
    }

    package func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        try await request("list", directory) { try await base.list(directory) }
    }

    package func delete(_ path: RemotePath) async throws {
        try await request("delete", path, writes: true) { try await base.delete(path) }
    }

    package func close() async {
        await base.close()
    }

    /// Counts one call of `primitive` (a write when `writes`) and the protocol requests it made,
    /// and logs it once it has ended.
    private func request<Result>(
        _ primitive: String, _ path: RemotePath, bytes: Int64? = nil, writes: Bool = false, _ body: () async throws -> Result
    ) async throws -> Result {
        let start = ContinuousClock.now
        let (outcome, reported, retried) = await RemoteRequestCounter.measure(body)
        let requests = reported ?? 1
        state.withLock {
            $0.storeCalls += 1
            $0.requests += requests
            $0.retriedRequests += retried
            if writes { $0.writeCalls += 1 }
        }
        var metadata: Logger.Metadata = [
            "primitive": "\(primitive)", "path": "\(path)", "requests": "\(requests)", "retried": "\(retried)",
            "ms": "\((ContinuousClock.now - start).wholeMilliseconds)",
        ]
        if let bytes { metadata["bytes"] = "\(bytes)" }
        switch outcome {
        case .success(let result):
            metadata["outcome"] = "ok"
            logger.debug("remote request", metadata: metadata)
            return result
        case .failure(let error):
            metadata["outcome"] = "\((error as? RemoteStoreError).map { "\($0.code)" } ?? "failed")"
            logger.debug("remote request", metadata: metadata)
            throw error
        }
    }

    private static func size(of file: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
