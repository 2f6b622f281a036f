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
        let folder = try RemotePath("rollsync-scenario-\(UUID().uuidString)")
        let baseStore = try await Self.registry.makeStore(for: configuration(path: ""))
        try await baseStore.createDirectory(at: folder)
        let store = try await Self.registry.makeStore(for: configuration(path: folder.string + "/"))
        var failure: (any Error)?
        do {
            try await body(TestRemote(store: store, localRoot: localDataDirectory?.appendingPathComponent(folder.string)))
        } catch {
            failure = error
        }
        await store.close()
        try? await baseStore.delete(folder)
        await baseStore.close()
        if let failure { throw failure }
    }

    /// The directory on this machine that holds the server's root, when the test scripts say.
    private var localDataDirectory: URL? {
        let variable = switch self {
        case .sftp: "ROLLSYNC_TEST_SFTP_DATA"
        case .webdavApache: "ROLLSYNC_TEST_WEBDAV_APACHE_DATA"
        case .wsgidav, .nginx, .lighttpd, .s3: ""
        }
        return Self.environment[variable].map { URL(fileURLWithPath: $0) }
    }

    /// The variable holding the URL of a WebDAV server (`Scripts/test-servers.d`).
    private var webDAVURLVariable: String {
        switch self {
        case .sftp, .webdavApache, .s3: "ROLLSYNC_TEST_WEBDAV_APACHE_URL"
        case .wsgidav: "ROLLSYNC_TEST_WEBDAV_WSGIDAV_URL"
        case .nginx: "ROLLSYNC_TEST_WEBDAV_NGINX_URL"
        case .lighttpd: "ROLLSYNC_TEST_WEBDAV_LIGHTTPD_URL"
        }
    }

    private func configuration(path: String) throws -> RemoteStoreConfiguration {
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
        case .s3:
            var url = try #require(URLComponents(string: try variable("ROLLSYNC_TEST_S3_URL")))
            url.path = "/" + path
            return RemoteStoreConfiguration(
                url: try #require(url.url),
                settings: ["access-key-id": try variable("ROLLSYNC_TEST_S3_ACCESS_KEY_ID")],
                secrets: ["secret-access-key": try variable("ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY")]
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
                #expect(idle.requests == 1, "one PROPFIND or ListObjectsV2")
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
}
