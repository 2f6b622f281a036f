import RemoteProtocol

/// A small pool of ``CurlConnection``s for one server, so concurrent calls each get their own
/// handle (libcurl handles are never shared between two transfers) and finished handles are
/// reused with their open connections.
///
/// At most `capacity` handles exist; a caller that finds them all busy waits for one to be returned.
/// That wait is short even under cancellation: cancelled transfers stop within about a second and
/// return their handle, and a cancelled waiter's own transfer is aborted by its cancellation handler
/// as soon as it starts.
package actor CurlConnectionPool {
    private let options: CurlOptions
    private let capacity: Int
    private var idle: [CurlConnection] = []
    private var createdCount = 0
    private var waiters: [CheckedContinuation<CurlConnection, Never>] = []
    private var isClosed = false

    /// Creates an empty pool; handles are made on demand.
    package init(options: CurlOptions, capacity: Int) {
        precondition(capacity >= 1, "a connection pool needs room for at least one connection")
        self.options = options
        self.capacity = capacity
    }

    /// Runs `body` with a connection of its own, returning the connection to the pool afterwards.
    /// - Throws: ``RemoteStoreError`` with code `unavailable` once the pool is closed, or what
    ///   `body` throws.
    package nonisolated func withConnection<Result: Sendable>(
        _ body: (CurlConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await acquire()
        do {
            let result = try await body(connection)
            await release(connection)
            return result
        } catch {
            await release(connection)
            throw error
        }
    }

    /// Sends `request` on a connection of its own and waits for the whole response; cancelling
    /// the calling task aborts the transfer. Counts the request in ``RemoteRequestCounter``.
    ///
    /// Returns any HTTP status; only failures to get a response throw.
    /// - Throws: `CancellationError`, or ``RemoteStoreError`` (see
    ///   ``CurlConnection/perform(_:cancellation:)``) with `path` filled in where it has none.
    package nonisolated func perform(_ request: HTTPRequest, for path: RemotePath?) async throws -> HTTPResponse {
        try await perform(for: path) { request }
    }

    /// ``perform(_:for:)`` with the request made by `makeRequest` once a connection is free, just
    /// before it is sent: for requests signed with the time they are sent (S3), which may wait
    /// long for a connection.
    package nonisolated func perform(for path: RemotePath?, _ makeRequest: @escaping @Sendable () -> HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        RemoteRequestCounter.record()
        let cancellation = CancellationFlag()
        do {
            return try await withConnection { connection in
                let request = makeRequest()
                return try await withTaskCancellationHandler {
                    try await connection.perform(request, cancellation: cancellation)
                } onCancel: {
                    cancellation.cancel()
                }
            }
        } catch var error as RemoteStoreError {
            if error.path == nil { error.path = path }
            throw error
        }
    }

    /// Drops the idle handles (closing their connections); handles in use are dropped when they
    /// are returned. Later requests fail with `unavailable`. Idempotent.
    package func close() {
        isClosed = true
        idle.removeAll()
    }

    private func acquire() async throws -> CurlConnection {
        guard !isClosed else {
            throw RemoteStoreError(.unavailable, message: "the \(options.serverKind) store has been closed")
        }
        if let connection = idle.popLast() { return connection }
        if createdCount < capacity {
            createdCount += 1
            do {
                return try CurlConnection(name: "\(options.serverKind.lowercased())-\(createdCount)", options: options)
            } catch {
                createdCount -= 1
                throw error
            }
        }
        return await withCheckedContinuation { waiters.append($0) }
    }

    private func release(_ connection: CurlConnection) {
        if !waiters.isEmpty {
            waiters.removeFirst().resume(returning: connection)
        } else if !isClosed {
            idle.append(connection)
        }
    }
}
