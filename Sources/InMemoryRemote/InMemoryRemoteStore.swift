import Foundation
import RemoteProtocol

/// A `RemoteStore` held in memory, for tests: it obeys the contract exactly (it passes every
/// check of `RemoteStoreConformance`) and adds what tests of the sync engine need.
///
/// - **Sharing**: ``named(_:)`` and `memory://name` URLs (see ``makeStore(for:)``) return the
///   same instance for the same name within the process, so two clients of a test share one
///   store. ``init(capabilities:latency:)`` makes a private one.
/// - **Fault injection** (``failCall(_:of:code:timing:)``, ``failEveryCall(of:code:timing:)``,
///   ``heal()``): fail the n-th call of a primitive, fail every call until healed, and fail
///   either before the effect or *after* it (the write is applied but the caller gets an error,
///   as when a server's reply is lost).
/// - **Latency** (``setLatency(_:)``): every call waits that long before it takes effect. A
///   simulation knob for realistic interleavings, never a way to synchronise a test.
/// - **Counting** (``statistics``, ``resetStatistics()``): requests per primitive and bytes
///   uploaded and downloaded, to prove that an operation costs a bounded number of requests.
/// - **Capabilities** chosen at creation, for example `atomicReplace: false` to exercise code that
///   must cope with a backend whose replacements are not atomic (the store itself always replaces
///   atomically; only the declaration changes). The modification-time precision is honoured:
///   dates are truncated to it, and left out when it is `nil`.
///
/// Every call is atomic with respect to the others: its effect is applied in one step on the
/// actor, after any latency. Calls of a cancelled task still complete, except that the reading of
/// the local file of an upload, the writing of the local file of a download, and the latency
/// wait stop with `CancellationError`. ``close()`` does nothing: the content stays, and a named
/// store can be used again.
public actor InMemoryRemoteStore: RemoteStore {
    /// What this store declares; see the type's documentation.
    public nonisolated let capabilities: RemoteCapabilities

    /// The capabilities of a store made without arguments: server-side copy, atomic replace,
    /// 1 ms modification-time precision and exclusive creation, as the real backends declare.
    public static let defaultCapabilities = RemoteCapabilities(
        serverSideCopy: true, atomicReplace: true, modificationTimePrecision: .milliseconds(1), exclusiveCreate: true
    )

    /// ``defaultCapabilities`` without ``RemoteCapabilities/exclusiveCreate``: a store like one
    /// whose protocol cannot create exclusively, for tests of the engine's fallback.
    public static let capabilitiesWithoutExclusiveCreate = RemoteCapabilities(
        serverSideCopy: true, atomicReplace: true, modificationTimePrecision: .milliseconds(1)
    )

    private var tree: InMemoryFileTree
    private var latency: Duration?
    var counters = Statistics()
    var pendingFaults: [PendingFault] = []
    var permanentFault: PendingFault?

    /// Creates an empty, private store.
    ///
    /// - Parameters:
    ///   - capabilities: what the store declares (see the type's documentation).
    ///   - latency: how long every call waits before it takes effect; `nil` for none.
    public init(capabilities: RemoteCapabilities = InMemoryRemoteStore.defaultCapabilities, latency: Duration? = nil) {
        self.capabilities = capabilities
        self.latency = latency
        self.tree = InMemoryFileTree(now: Date())
    }

    /// Sets how long every later call waits before it takes effect (`nil` or zero: no wait).
    /// The wait is a cancellable `Task.sleep`; a call cancelled during it throws
    /// `CancellationError` and has no effect.
    public func setLatency(_ latency: Duration?) {
        self.latency = latency
    }

    // MARK: RemoteStore

    public func exists(_ path: RemotePath) async throws -> RemoteItem? {
        try await perform(.exists, path) { tree.item(at: path, reportDates: reportsDates) }
    }

    public func createDirectory(at path: RemotePath) async throws {
        try await perform(.createDirectory, path) { try tree.createDirectory(at: path, now: now()) }
    }

    public func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        try await perform(.upload, path) {
            let content = try Self.readLocalFile(localFile, for: path)
            try tree.writeFile(content, at: path, now: now())
            counters.bytesUploaded += Int64(content.count)
        }
    }

    /// Creates the file only if nothing stands at `path` (counted and faulted as an upload);
    /// `unsupported` when the declared capabilities leave out ``RemoteCapabilities/exclusiveCreate``.
    public func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        guard capabilities.exclusiveCreate else {
            throw RemoteStoreError(.unsupported, path: path, message: "this store declares no exclusive creation")
        }
        try await perform(.upload, path) {
            if tree.item(at: path, reportDates: false) != nil {
                throw RemoteStoreError(.alreadyExists, path: path, message: "something already exists at this path")
            }
            let content = try Self.readLocalFile(localFile, for: path)
            try tree.writeFile(content, at: path, now: now())
            counters.bytesUploaded += Int64(content.count)
        }
    }

    public func download(_ path: RemotePath, to localFile: URL) async throws {
        let content = try await perform(.download, path) {
            let content = try tree.file(at: path)
            counters.bytesDownloaded += Int64(content.count)
            return content
        }
        try Task.checkCancellation()
        do {
            try content.write(to: localFile, options: .atomic)
        } catch {
            throw RemoteStoreError(.localFile, path: path, message: "cannot write the local file \(localFile.path)", underlying: error)
        }
    }

    public func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        try await perform(.copy, destination) {
            try tree.writeFile(try tree.file(at: source), at: destination, now: now())
        }
    }

    public func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        try await perform(.list, directory) { try tree.list(directory, reportDates: reportsDates) }
    }

    public func delete(_ path: RemotePath) async throws {
        try await perform(.delete, path) { try tree.delete(path) }
    }

    // MARK: Internals

    /// Counts the call, decides whether an injected fault hits it, waits for the latency, and
    /// applies `effect` in one step (between the fault points).
    private func perform<Result>(_ primitive: Primitive, _ path: RemotePath, _ effect: () throws -> Result) async throws -> Result {
        counters.requests[primitive, default: 0] += 1
        let fault = nextFault(for: primitive)
        if let latency, latency > .zero {
            try await Task.sleep(for: latency)
        }
        if let fault, fault.timing == .beforeEffect {
            throw fault.error(for: primitive, at: path)
        }
        let result = try effect()
        if let fault, fault.timing == .afterEffect {
            throw fault.error(for: primitive, at: path)
        }
        return result
    }

    private var reportsDates: Bool { capabilities.modificationTimePrecision != nil }

    /// The current time, truncated to the declared modification-time precision.
    private func now() -> Date {
        let date = Date()
        guard let precision = capabilities.modificationTimePrecision else { return date }
        let seconds = Double(precision.components.seconds) + Double(precision.components.attoseconds) / 1e18
        guard seconds > 0 else { return date }
        return Date(timeIntervalSince1970: (date.timeIntervalSince1970 / seconds).rounded(.down) * seconds)
    }

    /// Reads the local file of an upload in chunks, stopping with `CancellationError` between them.
    private static func readLocalFile(_ url: URL, for path: RemotePath) throws -> Data {
        func localFileError(_ error: any Error) -> RemoteStoreError {
            RemoteStoreError(.localFile, path: path, message: "cannot read the local file \(url.path)", underlying: error)
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw localFileError(error)
        }
        defer { try? handle.close() }
        var content = Data()
        while true {
            try Task.checkCancellation()
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                throw localFileError(error)
            }
            guard let chunk, !chunk.isEmpty else { return content }
            content.append(chunk)
        }
    }
}
