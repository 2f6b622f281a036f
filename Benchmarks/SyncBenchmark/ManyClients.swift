import Foundation
import InMemoryRemote
import RemoteProtocol
import S3Remote
import SyncCore

/// What one operation cost, as the store saw it.
struct OperationCost {
    var requests = 0
    var writeCalls = 0
    /// Bytes of response bodies received (listings, downloads), when the backend counts them
    /// (S3); otherwise the bytes of the files downloaded.
    var bytes = 0
    var seconds = 0.0

    /// `requests/writes, bytes`.
    var cell: String { "\(requests)/\(writeCalls), \(bytes) B" }
}

/// The costs of section 8 with one number of clients.
struct ManyClientsCosts {
    var clients: Int
    var nothingNew: OperationCost
    var oneNewSet: OperationCost
    var bootstrap: OperationCost
    var bootstrapSets: Int
    var vacuum: OperationCost
    var vacuumRemoved: Int
    /// What kept sets back, if anything: the first hold's reason.
    var vacuumHold: String?
}

/// Section 8: `clients` clients of one document on `base` (each registered and synced once), one
/// of which pushes `sets` sets that every other client then applies and then uploads a whole
/// store. Then measures, on the last client: a sync with nothing new, a sync applying one set; a
/// new client's first sync (its bootstrap); and the first client's vacuum, which removes the
/// `sets` sets everyone applied. The last client keeps the default `lastSyncRecordInterval` (its
/// syncs that push nothing write nothing) and records what it applied with a vacuum of its own;
/// the others record every sync, as their daily record would tell vacuum later. The clients sync one after another, so the counts of the
/// shared store are each operation's own.
func measureManyClients(on base: any RemoteStore, clients: Int, sets: Int, in directory: URL) async throws -> ManyClientsCosts {
    let store = CountingRemoteStore(base)
    let scratch = directory.appendingPathComponent("many-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    func client(_ name: String, recordingEverySync: Bool = true) throws -> BenchmarkClient {
        try BenchmarkClient(
            name, store: store, in: scratch, lastSyncRecordInterval: recordingEverySync ? .zero : SyncConfiguration.defaultLastSyncRecordInterval
        )
    }
    func measure<T>(_ operation: () async throws -> T) async throws -> (T, OperationCost) {
        let before = store.counts, bytesBefore = (base as? S3RemoteStore)?.receivedByteCount
        let start = ContinuousClock.now
        let result = try await operation()
        let elapsed = ContinuousClock.now - start
        let after = store.counts
        let bytes = (base as? S3RemoteStore).map { $0.receivedByteCount - (bytesBefore ?? 0) } ?? Int(after.bytesDownloaded - before.bytesDownloaded)
        let cost = OperationCost(
            requests: after.requests - before.requests, writeCalls: after.writeCalls - before.writeCalls, bytes: bytes,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        )
        return (result, cost)
    }

    let writer = try client("client0")
    try await writer.sync()
    var members = [writer]
    for index in 1..<clients {
        let member = try client("client\(index)", recordingEverySync: index < clients - 1)
        try await member.sync()
        members.append(member)
    }
    for _ in 0..<sets {
        try writer.insertNote("note-\(UUID().uuidString)")
        try await writer.sync()
    }
    for member in members.dropFirst() {
        try await member.sync()
    }
    _ = try await writer.manager.uploadWholeStore()  // what new clients start from, and what lets vacuum remove sets
    let reader = members[clients - 1]
    let (idle, nothingNew) = try await measure { try await reader.sync() }
    try writer.insertNote("note-\(UUID().uuidString)")
    try await writer.sync()
    let (applying, oneNewSet) = try await measure { try await reader.sync() }
    let newcomer = try client("newcomer")
    let (joined, bootstrap) = try await measure { try await newcomer.sync() }
    _ = try await reader.manager.vacuum()  // its sync records what it applied, as its daily record would
    let (vacuumed, vacuum) = try await measure { try await writer.manager.vacuum() }
    for item in try await base.list(.root) {  // a real server keeps nothing of the run
        try await base.delete(try RemotePath(item.name))
    }
    await base.close()
    precondition(
        idle.appliedSets == 0 && idle.writeCalls == 0 && applying.appliedSets == 1 && joined.appliedSets > 0,
        "the benchmark's syncs did not do what they measure"
    )
    return ManyClientsCosts(
        clients: clients, nothingNew: nothingNew, oneNewSet: oneNewSet, bootstrap: bootstrap, bootstrapSets: joined.appliedSets,
        vacuum: vacuum, vacuumRemoved: vacuumed.removedSets.count, vacuumHold: vacuumed.holds.first.map { "\($0.reason)" }
    )
}

/// Section 8's stores: the in-memory store with `latency` per call, and Ceph RGW when the test
/// servers run, each with the client counts it is measured at.
func manyClientsBackends(
    latency: Duration, environment: [String: String] = ProcessInfo.processInfo.environment
) throws -> [(name: String, counts: [Int], makeStore: () throws -> any RemoteStore)] {
    var backends: [(name: String, counts: [Int], makeStore: () throws -> any RemoteStore)] = [
        ("memory, \(latency.components.attoseconds / 1_000_000_000_000_000) ms a call", [10, 100, 1_000], { InMemoryRemoteStore(latency: latency) })
    ]
    if let base = environment["ROLLSYNC_TEST_RGW_URL"], let key = environment["ROLLSYNC_TEST_RGW_ACCESS_KEY_ID"],
        let secret = environment["ROLLSYNC_TEST_RGW_SECRET_ACCESS_KEY"], var components = URLComponents(string: base)
    {
        backends.append(("S3 (Ceph RGW)", [10, 100], {
            components.path = "/scale-\(UUID().uuidString)"
            guard let url = components.url else { throw CocoaError(.fileNoSuchFile) }
            return try S3RemoteStore(
                configuration: RemoteStoreConfiguration(url: url, settings: ["access-key-id": key], secrets: ["secret-access-key": secret]),
                environment: [:]
            )
        }))
    }
    return backends
}
