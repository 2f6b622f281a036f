import Foundation
import RemoteProtocol
import TestSupport
import Testing
import WebDAVRemote

/// A connection the server drops, resets or leaves silent in every phase of a WebDAV request (TCP
/// connect, TLS handshake, the authenticated request, the transfer), through a ``FaultyTCPProxy``
/// in front of the test Apache. Each must be a retryable `unavailable` or `timedOut` — never an
/// authentication failure or a malformed answer — retried by the store's retry policy, and a call
/// after the proxy heals must succeed.
@Suite("WebDAV connections dropped in every phase", .enabled(if: WebDAVTestServer.enabled))
struct WebDAVDroppedConnectionTests {
    /// One way to break a connection to one of Apache's locations, for test names.
    struct Breakage: Sendable, CustomTestStringConvertible {
        var name: String
        var server: WebDAVTestServer
        var fault: FaultyTCPProxy.Fault
        var expected: RemoteStoreError.Code = .unavailable
        var testDescription: String { name }
    }

    /// Faults that strike the first request of a fresh store (a listing).
    static let breakages: [Breakage] = [
        Breakage(name: "TCP connect: closed at once", server: .apache, fault: .closeAtAccept(greeting: nil)),
        Breakage(name: "TCP connect: a server that never answers", server: .apache, fault: .stallAtAccept, expected: .timedOut),
        Breakage(name: "TLS handshake: cut at the ClientHello", server: .apacheTLS, fault: .cut(.clientFlight(1), reset: false)),
        Breakage(name: "TLS handshake: reset at the ClientHello", server: .apacheTLS, fault: .cut(.clientFlight(1), reset: true)),
        Breakage(name: "TLS handshake: cut in the ServerHello", server: .apacheTLS, fault: .cut(.serverBytes(100), reset: false)),
        Breakage(name: "TLS handshake: stalled", server: .apacheTLS, fault: .stall(.clientFlight(1)), expected: .timedOut),
        Breakage(name: "login (Basic): cut at the request", server: .apache, fault: .cut(.clientFlight(1), reset: false)),
        Breakage(name: "login (Basic over TLS): cut after the handshake", server: .apacheTLS, fault: .cut(.clientFlight(2), reset: false)),
        Breakage(name: "login (Digest): the challenge never arrives", server: .apacheDigest, fault: .cut(.serverFlight(1), reset: true)),
        Breakage(name: "login (Digest): stalled at the answer to the challenge", server: .apacheDigest, fault: .stall(.clientFlight(2)), expected: .timedOut),
        Breakage(name: "login (Basic): the answer never comes back", server: .apache, fault: .cut(.serverFlight(1), reset: false)),
    ]

    @Test(arguments: breakages)
    func brokenConnectionIsRetryableAndRetried(_ breakage: Breakage) async throws {
        let configuration = try await breakage.server.freshConfiguration(
            settings: Self.settings(for: breakage), auth: breakage.server.name == "apache-digest" ? "digest" : nil
        )
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(configuration.url.port))
        defer { proxy.stop() }

        proxy.inject(breakage.fault)
        let store = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 1))
        let error = await #expect(throws: RemoteStoreError.self) { _ = try await store.list(.root) }
        #expect(proxy.faultsFired >= 1, "the fault did not strike: \(breakage.fault)")
        #expect(error?.code == breakage.expected, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)

        // Once the proxy heals, the same store works.
        proxy.heal()
        #expect(try await store.list(.root).isEmpty)
        await store.close()

        // The retry policy gets past a fault that strikes once.
        proxy.inject(breakage.fault, connections: 1)
        let retrying = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 3))
        let fired = proxy.faultsFired
        #expect(try await retrying.list(.root).isEmpty)
        #expect(proxy.faultsFired == fired + 1)
        await retrying.close()
    }

    /// A Digest login whose answer to the challenge is cut (the second request of a connection):
    /// libcurl itself sends a request again on a fresh connection when a reused one died before
    /// any answer, so the listing succeeds on the second connection.
    @Test(arguments: [false, true])
    func digestChallengeAnswerCutIsSentAgainByLibcurl(reset: Bool) async throws {
        let configuration = try await WebDAVTestServer.apacheDigest.freshConfiguration(settings: Self.settings(for: nil), auth: "digest")
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(configuration.url.port))
        defer { proxy.stop() }
        proxy.inject(.cut(.clientFlight(2), reset: reset))
        let store = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 1))
        #expect(try await store.list(.root).isEmpty)
        #expect(proxy.faultsFired == 1)
        #expect(proxy.acceptedConnections == 2)
        await store.close()
    }

    /// A download whose connection drops, is reset or stalls mid-body: `unavailable` (a body
    /// shorter than its Content-Length is a connection that dropped) or `timedOut`, no local file;
    /// the same store downloads once the proxy heals, and the retry policy gets past one fault.
    @Test(arguments: [
        Breakage(name: "cut", server: .apache, fault: .cut(.serverBytes(2 << 20), reset: false)),
        Breakage(name: "reset", server: .apache, fault: .cut(.serverBytes(2 << 20), reset: true)),
        Breakage(name: "stall", server: .apache, fault: .stall(.serverBytes(2 << 20)), expected: .timedOut),
        Breakage(name: "cut over TLS", server: .apacheTLS, fault: .cut(.serverBytes(2 << 20), reset: false)),
    ])
    func downloadBrokenMidTransfer(_ breakage: Breakage) async throws {
        let configuration = try await breakage.server.freshConfiguration(settings: Self.settings(for: breakage))
        let direct = try WebDAVRemoteStore(configuration: configuration)
        let body = Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await direct.write(body, to: "big.bin")
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(configuration.url.port))
        defer { proxy.stop() }
        let local = try LocalScratchFile()
        defer { local.remove() }

        proxy.inject(breakage.fault)
        let store = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 1))
        let error = await #expect(throws: RemoteStoreError.self) { try await store.download("big.bin", to: local.url) }
        #expect(proxy.faultsFired == 1)
        #expect(error?.code == breakage.expected, "\(error.map { "\($0)" } ?? "")")
        #expect(!FileManager.default.fileExists(atPath: local.url.path))

        proxy.heal()
        try await store.download("big.bin", to: local.url)
        #expect(try Data(contentsOf: local.url) == body)
        await store.close()

        proxy.inject(breakage.fault, connections: 1)
        let retrying = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 3))
        try await retrying.download("big.bin", to: local.url)
        #expect(proxy.faultsFired == 2)
        #expect(try Data(contentsOf: local.url) == body)
        await retrying.close()
        try await direct.delete("big.bin")
        await direct.close()
    }

    /// An upload whose connection drops mid-body: `unavailable`; the same store uploads once the
    /// proxy heals.
    @Test(arguments: [false, true])
    func uploadCutMidTransfer(reset: Bool) async throws {
        let configuration = try await WebDAVTestServer.apache.freshConfiguration(settings: Self.settings(for: nil))
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(configuration.url.port))
        defer { proxy.stop() }
        let body = Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

        proxy.inject(.cut(.clientBytes(2 << 20), reset: reset))
        let store = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 1))
        let error = await #expect(throws: RemoteStoreError.self) { try await store.write(body, to: "big.bin") }
        // libcurl itself sends the PUT again once, on a fresh connection (the first one was reused).
        #expect(proxy.faultsFired >= 1)
        #expect(error?.code == .unavailable, "\(error.map { "\($0)" } ?? "")")

        proxy.heal()
        try await store.write(body, to: "big.bin")
        #expect(try await store.read("big.bin") == body)
        try await store.delete("big.bin")
        await store.close()
    }

    /// The answer to an upload's MOVE is lost after the server moved the file: the MOVE is sent
    /// again, which finds its source gone; the store sees that the target holds the upload and
    /// succeeds instead of reporting `notFound`.
    ///
    /// Who sends it again depends on the connection: libcurl itself when the MOVE went on a
    /// reused one, the store's retry policy when it went on a fresh one (on a loaded machine the
    /// server may close the idle connection between the PUT and the MOVE). Two attempts cover both.
    @Test func lostAnswerToTheFinalMoveStillCompletesTheUpload() async throws {
        let configuration = try await WebDAVTestServer.apache.freshConfiguration(settings: Self.settings(for: nil))
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(configuration.url.port))
        defer { proxy.stop() }
        let body = Data("moved once".utf8)

        // The first MOVE's answer is cut, whichever connection carries it; the one sent again
        // gets through.
        proxy.inject(.cut(.answerTo(requestStartingWith: "MOVE "), reset: false), strikes: 1)
        let store = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 2))
        try await store.write(body, to: "target.txt")
        #expect(proxy.faultsFired == 1)
        #expect(try await store.read("target.txt") == body)
        #expect(try await store.list(.root).map(\.name) == ["target.txt"])
        try await store.delete("target.txt")
        await store.close()
    }

    /// A wrong password through the same proxy is still a refusal, not a dropped connection.
    @Test func wrongPasswordThroughTheProxyIsStillRefused() async throws {
        let configuration = try await WebDAVTestServer.apacheDigest.freshConfiguration(password: "not-the-password", auth: "digest")
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(configuration.url.port))
        defer { proxy.stop() }
        let store = try WebDAVRemoteStore(configuration: proxied(configuration, through: proxy, retries: 3))
        let error = await #expect(throws: RemoteStoreError.self) { _ = try await store.list(.root) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.isRetryable == false)
        await store.close()
    }

    // MARK: - Helpers

    /// No netrc, the test CA for the TLS location, and for stalls short timeouts, so that they end
    /// in three seconds (the other tests keep the defaults: a machine busy with the other tests may
    /// pause a healthy transfer for seconds).
    private static func settings(for breakage: Breakage?) -> [String: String] {
        var settings = ["netrc": "off"]
        settings["ca-file"] = try? WebDAVTestServer.caFile()
        if breakage?.expected == .timedOut {
            settings["connect-timeout"] = "3"
            settings["low-speed-time"] = "3"
        }
        return settings
    }

    /// `configuration` with its URL's port replaced by the proxy's and `retries` attempts.
    private func proxied(_ configuration: RemoteStoreConfiguration, through proxy: FaultyTCPProxy, retries: Int) throws
        -> RemoteStoreConfiguration
    {
        var components = try #require(URLComponents(url: configuration.url, resolvingAgainstBaseURL: false))
        components.port = proxy.port
        var proxied = configuration
        proxied.url = try #require(components.url)
        proxied.settings["retries"] = "\(retries)"
        return proxied
    }
}
