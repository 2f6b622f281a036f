import FileRemote
import Foundation
import InMemoryRemote
import RemoteProtocol
import S3Remote
import SFTPRemote
import SyncCore
import WebDAVRemote

/// A backend the request counts are measured on: a fresh folder of it per measurement.
struct BenchmarkBackend {
    var name: String
    var makeStore: @Sendable (_ folder: String) async throws -> any RemoteStore

    /// The in-memory store, and the real SFTP, WebDAV and S3 servers when their `ROLLSYNC_TEST_*`
    /// variables are set (Scripts/benchmark.sh starts them).
    static func available(environment: [String: String] = ProcessInfo.processInfo.environment) -> [BenchmarkBackend] {
        var backends = [BenchmarkBackend(name: "memory") { _ in InMemoryRemoteStore() }]
        let registry = RemoteStoreRegistry()
        registry.register(SFTPRemoteStore.self)
        registry.register(WebDAVRemoteStore.self)
        if let base = environment["ROLLSYNC_TEST_SFTP_URL"], let identity = environment["ROLLSYNC_TEST_SFTP_IDENTITY"],
            let knownHosts = environment["ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"]
        {
            backends.append(BenchmarkBackend(name: "SFTP (OpenSSH)") { folder in
                try await fresh(folder, registry) { path in
                    RemoteStoreConfiguration(
                        url: URL(string: (base.hasSuffix("/") ? base : base + "/") + path)!,
                        settings: ["identity-file": identity, "known-hosts": knownHosts]
                    )
                }
            })
        }
        if let base = environment["ROLLSYNC_TEST_WEBDAV_APACHE_URL"], let user = environment["ROLLSYNC_TEST_WEBDAV_USER"],
            let password = environment["ROLLSYNC_TEST_WEBDAV_PASSWORD"]
        {
            backends.append(BenchmarkBackend(name: "WebDAV (Apache)") { folder in
                try await fresh(folder, registry) { path in
                    RemoteStoreConfiguration(url: URL(string: base + path)!, settings: ["user": user], secrets: ["password": password])
                }
            })
        }
        if let base = environment["ROLLSYNC_TEST_S3_URL"], let key = environment["ROLLSYNC_TEST_S3_ACCESS_KEY_ID"],
            let secret = environment["ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY"], let bucket = URLComponents(string: base)
        {
            backends.append(BenchmarkBackend(name: "S3 (moto)") { folder in
                var components = bucket
                components.path = "/" + folder
                guard let url = components.url else { throw CocoaError(.fileNoSuchFile) }
                return try S3RemoteStore(
                    configuration: RemoteStoreConfiguration(url: url, settings: ["access-key-id": key], secrets: ["secret-access-key": secret]),
                    environment: [:]
                )
            })
        }
        return backends
    }

    /// A store rooted in a new folder `folder` of the server.
    private static func fresh(
        _ folder: String, _ registry: RemoteStoreRegistry, _ configuration: (String) -> RemoteStoreConfiguration
    ) async throws -> any RemoteStore {
        let base = try await registry.makeStore(for: configuration(""))
        try await base.createDirectory(at: try RemotePath(folder))
        await base.close()
        return try await registry.makeStore(for: configuration(folder + "/"))
    }
}

/// What one sync cost.
struct SyncCost {
    var storeCalls: Int
    var requests: Int
    /// The store calls that changed the remote.
    var writeCalls: Int

    init(_ report: SyncReport) {
        storeCalls = report.storeCalls
        requests = report.requests
        writeCalls = report.writeCalls
    }

    /// `calls/requests/writes`.
    var cell: String { "\(storeCalls)/\(requests)/\(writeCalls)" }
}

/// Requests of a sync with nothing new, and of a sync applying one new set, with `clients`
/// clients of an application of remote format `format`.
func measureSyncCosts(on backend: BenchmarkBackend, clients: Int, format: Int, in directory: URL) async throws
    -> (nothingNew: SyncCost, oneNewSet: SyncCost)
{
    let folder = "benchmark-\(UUID().uuidString)"
    let store = try await backend.makeStore(folder)
    let scratch = directory.appendingPathComponent(folder)
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let members = try (0..<clients).map { try BenchmarkClient("client\($0)", store: store, in: scratch) }
    await members[0].application.createNewApplications(inFormat: format)
    for member in members {
        try member.insertNote("note-\(UUID().uuidString)")
        try await member.sync()
    }
    let reader = members[clients - 1]
    try await reader.sync()
    let idle = try await reader.sync()
    try members[0].insertNote("note-\(UUID().uuidString)")
    try await members[0].sync()
    let applying = try await reader.sync()
    precondition(idle.appliedSets == 0 && applying.appliedSets == 1, "the benchmark's syncs did not do what they measure")
    // The folder stays on the test server, whose state Scripts/test-servers.sh removes.
    await store.close()
    return (SyncCost(idle), SyncCost(applying))
}
