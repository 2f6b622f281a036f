import Foundation
import RemoteProtocol
import S3Remote
import SFTPRemote
import SyncCore
import Testing
import WebDAVRemote

/// The real servers `Scripts/test.sh` starts, described by its `ROLLSYNC_TEST_*` variables, opened
/// the way an application opens them: by URL through the scheme registry.
enum TestServer: String, CaseIterable, CustomStringConvertible, Sendable {
    case sftp
    case webdavApache
    case wsgidav
    case nginx
    case lighttpd
    case s3
    /// Ceph's RADOS Gateway, through its first gateway.
    case rgw

    var description: String { rawValue }

    private static let environment = ProcessInfo.processInfo.environment

    /// True when the servers are running, or required (then a missing server fails the test).
    static let isEnabled = environment["ROLLSYNC_TEST_SFTP_URL"] != nil
        || environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1"

    static let skipReason: Comment = "the test servers are not running: run Scripts/test.sh"

    private static let registry: RemoteStoreRegistry = {
        let registry = RemoteStoreRegistry()
        registry.register(SFTPRemoteStore.self)
        registry.register(WebDAVRemoteStore.self)
        registry.register(S3RemoteStore.self)
        return registry
    }()

    /// Runs `body` on a store rooted in a fresh, empty folder of this server, then deletes the
    /// folder, whether `body` succeeded or not.
    func withFreshStore(_ body: (TestRemote) async throws -> Void) async throws {
        try await withFreshFolder(alsoThroughSecondGateway: false) { remotes in try await body(remotes[0]) }
    }

    /// Runs `body` on stores rooted in one fresh, empty folder of this server, then deletes the
    /// folder, whether `body` succeeded or not: one store, or with `alsoThroughSecondGateway`
    /// (RGW only) a second one reaching the same folder through the cluster's other gateway.
    func withFreshFolder(alsoThroughSecondGateway: Bool, _ body: ([TestRemote]) async throws -> Void) async throws {
        let folder = try RemotePath("rollsync-scenario-\(UUID().uuidString)")
        let baseStore = try await Self.registry.makeStore(for: configuration(path: ""))
        try await baseStore.createDirectory(at: folder)
        var stores = [try await Self.registry.makeStore(for: configuration(path: folder.string + "/"))]
        var failure: (any Error)?
        do {
            if alsoThroughSecondGateway {
                stores.append(try await Self.registry.makeStore(for: configuration(path: folder.string + "/", urlVariable: "ROLLSYNC_TEST_RGW_SECOND_URL")))
            }
            let localRoot = localDataDirectory?.appendingPathComponent(folder.string)
            try await body(stores.map { TestRemote(store: $0, localRoot: localRoot) })
        } catch {
            failure = error
        }
        for store in stores { await store.close() }
        try? await baseStore.delete(folder)
        await baseStore.close()
        if let failure { throw failure }
    }

    /// The directory on this machine that holds the server's root, when the test scripts say.
    private var localDataDirectory: URL? {
        let variable = switch self {
        case .sftp: "ROLLSYNC_TEST_SFTP_DATA"
        case .webdavApache: "ROLLSYNC_TEST_WEBDAV_APACHE_DATA"
        case .wsgidav, .nginx, .lighttpd, .s3, .rgw: ""
        }
        return Self.environment[variable].map { URL(fileURLWithPath: $0) }
    }

    /// The variable holding the URL of a WebDAV server (`Scripts/test-servers.d`).
    private var webDAVURLVariable: String {
        switch self {
        case .sftp, .webdavApache, .s3, .rgw: "ROLLSYNC_TEST_WEBDAV_APACHE_URL"
        case .wsgidav: "ROLLSYNC_TEST_WEBDAV_WSGIDAV_URL"
        case .nginx: "ROLLSYNC_TEST_WEBDAV_NGINX_URL"
        case .lighttpd: "ROLLSYNC_TEST_WEBDAV_LIGHTTPD_URL"
        }
    }

    /// The configuration of the store at `path`; for RGW, through the gateway whose URL
    /// `urlVariable` holds (the first by default).
    private func configuration(path: String, urlVariable: String = "ROLLSYNC_TEST_RGW_URL") throws -> RemoteStoreConfiguration {
        func variable(_ name: String) throws -> String {
            try #require(Self.environment[name], "ROLLSYNC_REQUIRE_TEST_SERVERS=1 but \(name) is not set")
        }
        switch self {
        case .sftp:
            let base = try variable("ROLLSYNC_TEST_SFTP_URL")
            return RemoteStoreConfiguration(
                url: try #require(URL(string: base.hasSuffix("/") ? base + path : base + "/" + path)),
                settings: [
                    "identity-file": try variable("ROLLSYNC_TEST_SFTP_IDENTITY"),
                    "known-hosts": try variable("ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"),
                ]
            )
        case .s3, .rgw:
            let prefix = self == .s3 ? "ROLLSYNC_TEST_S3" : "ROLLSYNC_TEST_RGW"
            var url = try #require(URLComponents(string: try variable(self == .s3 ? "ROLLSYNC_TEST_S3_URL" : urlVariable)))
            url.path = "/" + path
            return RemoteStoreConfiguration(
                url: try #require(url.url),
                settings: ["access-key-id": try variable(prefix + "_ACCESS_KEY_ID")],
                secrets: ["secret-access-key": try variable(prefix + "_SECRET_ACCESS_KEY")]
            )
        case .webdavApache, .wsgidav, .nginx, .lighttpd:
            let base = try variable(webDAVURLVariable)
            return RemoteStoreConfiguration(
                url: try #require(URL(string: base + path)),
                settings: ["user": try variable("ROLLSYNC_TEST_WEBDAV_USER")],
                secrets: ["password": try variable("ROLLSYNC_TEST_WEBDAV_PASSWORD")]
            )
        }
    }
}

/// The synchronisation scenarios, unchanged, through the real SFTP and WebDAV servers: the
/// operations are written once against `RemoteStore`, so they must behave the same there.
@Suite("Synchronization through the real servers", .enabled(if: TestServer.isEnabled, TestServer.skipReason))
struct ServerSyncScenarioTests {
    @Test("a sync reports the requests the server saw, more than its store calls; a sync with nothing new is one listing", arguments: TestServer.allCases)
    func requestsAsTheServerSeesThem(server: TestServer) async throws {
        try await server.withFreshStore { remote in
            let (anna, ben) = try await TestClient.syncedPair(on: remote)
            try anna.execute("INSERT INTO tag VALUES ('t1', 'from anna')")
            try await anna.sync()
            try ben.execute("INSERT INTO tag VALUES ('t2', 'from ben')")
            let before = (remote.store as? WebDAVRemoteStore)?.requestCount ?? (remote.store as? S3RemoteStore)?.requestCount
            let report = try await ben.sync()
            #expect(report.appliedSets == 1 && report.pushedChanges == 1)
            // Every server needs more than one request for some call (an upload is several).
            #expect(report.requests > report.storeCalls)
            if let webdav = remote.store as? WebDAVRemoteStore, let before {
                #expect(report.requests == webdav.requestCount - before, "the HTTP requests the store sent")
            }
            if let s3 = remote.store as? S3RemoteStore, let before {
                #expect(report.requests == s3.requestCount - before, "the HTTP requests the store sent")
            }
            try await anna.sync()
            let idle = try await ben.sync()
            #expect(idle.storeCalls == 1 && idle.writeCalls == 0, "one listing of RecentSyncs/")
            if remote.store is WebDAVRemoteStore || remote.store is S3RemoteStore {
                // A retry after a transient failure (a loaded server) adds requests, reported as such.
                #expect(idle.requests - idle.retriedRequests == 1, "one PROPFIND or ListObjectsV2")
            }
        }
    }

    @Test("every kind of change reaches every client", arguments: TestServer.allCases)
    func everyKindOfChangePropagates(server: TestServer) async throws {
        try await server.withFreshStore(SyncScenarioTests.everyKindOfChangePropagates(through:))
    }

    @Test("a resolver's decision converges on every client", arguments: TestServer.allCases)
    func resolverDecisionConverges(server: TestServer) async throws {
        try await server.withFreshStore(SyncScenarioTests.resolverDecisionConverges(through:))
    }

    /// Clients in two regions of one object store: Anna and Carl reach the cluster through one
    /// RGW gateway, Ben and Dora through the other. All four register at once on a new document
    /// (one creates the application: an exclusive creation racing across gateways), edit the same
    /// rows, and must converge, with a last round that pushes nothing.
    @Test("clients syncing through two gateways of one Ceph cluster create the application once and converge")
    func clientsOnTwoGatewaysConverge() async throws {
        try await TestServer.rgw.withFreshFolder(alsoThroughSecondGateway: true) { remotes in
            let clients = try ["anna", "ben", "carl", "dora"].enumerated().map { index, name in
                try TestClient(name, remote: remotes[index % 2].store)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { try await client.sync() } }
                try await group.waitForAll()
            }
            var creators: [String] = []
            for client in clients where try await client.application.register().createdApplication {
                creators.append("\(client.name)")
            }
            #expect(creators.count == 1, "exactly one client created the application: \(creators)")
            for (index, client) in clients.enumerated() {
                try client.execute("INSERT INTO tag VALUES ('t\(index)', 'from \(client.name)')")
                try client.execute("INSERT OR REPLACE INTO tag VALUES ('shared', 'written by \(client.name)')")
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { try await client.sync() } }
                try await group.waitForAll()
            }
            for client in clients { try await client.sync() }
            for client in clients { try await client.sync() }
            let expected = try clients[0].dump()
            for client in clients {
                #expect(try client.dump() == expected, "\(client.name) holds what anna holds")
                #expect(try client.count("tag") == 5)
            }
            for client in clients {
                let quiet = try await client.sync()
                #expect(quiet.pushedChanges == 0 && quiet.appliedSets == 0 && quiet.writeCalls == 0, "\(client.name): a quiet system stops pushing")
            }
        }
    }
}
