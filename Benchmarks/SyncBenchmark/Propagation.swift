import FileRemote
import Foundation
import GRDB
import RemoteProtocol
import SyncCore

/// The stores the propagation benchmark runs on: a local folder (with its change notifications),
/// and the real SFTP, WebDAV and S3 test servers when their `ROLLSYNC_TEST_*` variables are set.
func propagationBackends(in directory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> [BenchmarkBackend] {
    var backends = [BenchmarkBackend(name: "folder") { folder in
        let root = directory.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return try FileRemoteStore(root: root)
    }]
    backends += BenchmarkBackend.available(environment: environment).filter { $0.name != "memory" }
    return backends
}

/// Propagation between two clients that each run ``AutomaticSync`` with the default configuration,
/// as two `rollsync watch` processes do: `rounds` edits, alternately on each client, each a few
/// seconds after the previous one arrived (two people at work), timed from the write on one
/// client to the row's arrival in the other's database (read every 10 ms).
/// - Returns: the seconds each edit took to arrive, in order.
func measurePropagation(on backend: BenchmarkBackend, rounds: Int, in directory: URL) async throws -> [Double] {
    let folder = "propagation-\(UUID().uuidString)"
    let store = try await backend.makeStore(folder)
    let scratch = directory.appendingPathComponent(folder + "-databases")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let clients = try [BenchmarkClient("alice", store: store, in: scratch), BenchmarkClient("bob", store: store, in: scratch)]
    for client in clients + clients { try await client.sync() }
    let watchers = clients.map { AutomaticSync(manager: $0.manager) }
    for watcher in watchers { await watcher.start() }
    var generator = SystemRandomNumberGenerator()
    var samples: [Double] = []
    for round in 0..<rounds {
        try await Task.sleep(for: .milliseconds(Int.random(in: 1000...6000, using: &generator)))
        let (writer, reader) = (clients[round % 2], clients[1 - round % 2])
        let id = "note-\(UUID().uuidString)"
        let clock = ContinuousClock()
        let start = clock.now
        try writer.insertNote(id)
        while try await reader.database.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note WHERE id = ?", arguments: [id]) }) == 0 {
            guard clock.now - start < .seconds(180) else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "no arrival in 180 s"]) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let (seconds, attoseconds) = (clock.now - start).components
        samples.append(Double(seconds) + Double(attoseconds) / 1e18)
    }
    for watcher in watchers { await watcher.stop() }
    await store.close()
    return samples
}

/// The checks (one listing of `RecentSyncs/` each) an idle client makes in `hours` hours with
/// `configuration`'s polling curve, starting right after activity, as ``AutomaticSync`` waits
/// between them (``AutomaticSyncConfiguration/nextPollDelay(after:activity:)``).
func idleChecks(in hours: Double, with configuration: AutomaticSyncConfiguration = AutomaticSyncConfiguration()) -> Int {
    var elapsed = Duration.zero
    var delay = configuration.nextPollDelay(after: .zero, activity: true)
    var checks = 0
    while elapsed + delay <= .seconds(hours * 3600) {
        elapsed += delay
        checks += 1
        delay = configuration.nextPollDelay(after: delay, activity: false)
    }
    return checks
}
