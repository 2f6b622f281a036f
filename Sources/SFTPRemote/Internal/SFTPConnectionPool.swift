import Foundation
import RemoteProtocol

/// Up to ``SFTPRemoteStore/Configuration/connectionCount`` SFTP connections shared by one store, so that
/// parallel calls run on parallel SSH connections (a libssh2 session serves one call at a time).
///
/// Connections are opened on demand and reused; a caller that finds every connection busy waits
/// for one to be returned. A broken connection is closed when it comes back, together with every
/// idle one (when one connection drops, the server has often restarted and dropped them all), and
/// the next caller gets a fresh one: that is how the store reconnects. A retired connection (after
/// an interrupted transfer) is closed alone.
actor SFTPConnectionPool {
    private let configuration: SFTPRemoteStore.Configuration
    private var idle: [SFTPConnection] = []
    private var openCount = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isClosed = false
    private var createdCount = 0

    /// Creates an empty pool.
    init(configuration: SFTPRemoteStore.Configuration) {
        self.configuration = configuration
    }

    /// A connected connection for the caller's exclusive use; hand it back with ``checkIn(_:)``.
    /// - Throws: connection errors (unavailable, authentication…), or `unavailable` once closed.
    func checkOut() async throws -> SFTPConnection {
        while true {
            guard !isClosed else {
                throw RemoteStoreError(.unsupported, message: "the SFTP store for \(configuration.knownHostsName) was closed")
            }
            if let connection = idle.popLast() {
                await connection.refreshIfIdle()
                if !connection.isRetired { return connection }
                await discard(connection)
                continue
            }
            if openCount < configuration.connectionCount {
                openCount += 1
                createdCount += 1
                let connection = SFTPConnection(configuration: configuration, name: "sftp-\(createdCount)")
                do {
                    try await connection.connect()
                    return connection
                } catch {
                    await discard(connection)
                    throw error
                }
            }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    /// Returns a connection; a broken or retired one is closed instead of reused.
    func checkIn(_ connection: SFTPConnection) async {
        if connection.isBroken {
            let suspects = idle
            idle.removeAll()
            for suspect in [connection] + suspects {
                await discard(suspect)
            }
        } else if connection.isRetired || isClosed {
            await discard(connection)
        } else {
            idle.append(connection)
            wakeOneWaiter()
        }
    }

    /// Closes every idle connection and refuses further check-outs; connections in use are closed
    /// when they come back. Idempotent.
    func close() async {
        isClosed = true
        let connections = idle
        idle.removeAll()
        for connection in connections {
            await discard(connection)
        }
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    private func discard(_ connection: SFTPConnection) async {
        openCount -= 1
        wakeOneWaiter()
        await connection.close()
    }

    private func wakeOneWaiter() {
        if !waiters.isEmpty { waiters.removeFirst().resume() }
    }
}
