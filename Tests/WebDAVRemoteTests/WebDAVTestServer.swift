import Foundation
import RemoteProtocol
import RemoteStoreConformance
import Testing
import TestSupport
import WebDAVRemote

/// A real WebDAV server started by `Scripts/test-servers.sh`, found through the environment
/// variables that script writes (`ROLLSYNC_TEST_WEBDAV_*`).
///
/// Without them a suite skips with a printed reason, unless `ROLLSYNC_REQUIRE_TEST_SERVERS=1`
/// (CI), where a missing server makes the tests fail instead.
struct WebDAVTestServer: Sendable, CustomTestStringConvertible {
    /// A short name for test output (`apache`, `wsgidav`, `nginx`, `lighttpd`).
    let name: String
    /// The environment variable holding the server's URL.
    let urlVariable: String
    /// True if the server leaves names starting with `.` out of PROPFIND listings (nginx dav_ext);
    /// such files can still be read and checked one by one.
    var hidesLeadingDotNamesInListings = false

    /// The contract checks this server cannot pass, each with the reason (Docs/Backends/WebDAV.md,
    /// "Servers", documents the same).
    var skippedChecks: [RemoteStoreConformance.Check: String] {
        guard hidesLeadingDotNamesInListings else { return [:] }
        return [
            .leadingDotNamesRoundTrip: """
                nginx dav_ext leaves names starting with '.' out of every PROPFIND listing (the files \
                can still be checked and downloaded); RollingSync's own names never start with '.'
                """,
        ]
    }

    /// The contract suite for this server's root.
    func conformanceSuite() -> RemoteStoreConformance {
        RemoteStoreConformance(options: .init(skipped: skippedChecks), makeStore: { try rootStore() })
    }

    /// Apache httpd with mod_dav_fs, Basic auth.
    static let apache = WebDAVTestServer(name: "apache", urlVariable: "ROLLSYNC_TEST_WEBDAV_APACHE_URL")
    /// The same Apache, on a location that requires Digest auth.
    static let apacheDigest = WebDAVTestServer(name: "apache-digest", urlVariable: "ROLLSYNC_TEST_WEBDAV_APACHE_DIGEST_URL")
    /// The same Apache over TLS, with a certificate signed by the test CA (``caFile()``).
    static let apacheTLS = WebDAVTestServer(name: "apache-tls", urlVariable: "ROLLSYNC_TEST_WEBDAV_APACHE_TLS_URL")
    /// wsgidav on cheroot, Basic (and Digest) auth.
    static let wsgidav = WebDAVTestServer(name: "wsgidav", urlVariable: "ROLLSYNC_TEST_WEBDAV_WSGIDAV_URL")
    /// nginx with its dav module and dav_ext, Basic auth.
    static let nginx = WebDAVTestServer(
        name: "nginx", urlVariable: "ROLLSYNC_TEST_WEBDAV_NGINX_URL", hidesLeadingDotNamesInListings: true
    )
    /// lighttpd with mod_webdav, Basic auth.
    static let lighttpd = WebDAVTestServer(name: "lighttpd", urlVariable: "ROLLSYNC_TEST_WEBDAV_LIGHTTPD_URL")
    /// The servers the full contract suite runs against.
    static let all = [apache, wsgidav, nginx, lighttpd]
    /// The servers the tests that run on each server use: ``all``, or Apache alone with
    /// ``TestServerVariety/onePerBackend``.
    static var tested: [WebDAVTestServer] { TestServerVariety.onePerBackend ? [apache] : all }

    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// True when CI demands that server-backed suites run.
    static var required: Bool { environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1" }

    /// True if every server's variables are set, or if they are required (so the tests run and
    /// fail loudly instead of skipping). Prints why a suite is skipped.
    static var enabled: Bool {
        let missing = ((all + [apacheDigest, apacheTLS]).map(\.urlVariable) + ["ROLLSYNC_TEST_WEBDAV_CA_FILE"])
            .filter { environment[$0] == nil }
        if missing.isEmpty || required { return true }
        print("Skipping WebDAV server tests: \(missing.joined(separator: ", ")) not set (run Scripts/test-servers.sh start)")
        return false
    }

    var testDescription: String { name }

    /// The user and password of the test servers.
    static func credentials() throws -> (user: String, password: String) {
        guard let user = environment["ROLLSYNC_TEST_WEBDAV_USER"], let password = environment["ROLLSYNC_TEST_WEBDAV_PASSWORD"]
        else {
            throw TestServerMissing(variable: "ROLLSYNC_TEST_WEBDAV_USER/PASSWORD")
        }
        return (user, password)
    }

    /// The PEM file of the CA that signed the TLS test server's certificate.
    static func caFile() throws -> String {
        guard let path = environment["ROLLSYNC_TEST_WEBDAV_CA_FILE"] else {
            throw TestServerMissing(variable: "ROLLSYNC_TEST_WEBDAV_CA_FILE")
        }
        return path
    }

    /// The server's root URL.
    func rootURL() throws -> URL {
        guard let text = Self.environment[urlVariable], let url = URL(string: text) else {
            throw TestServerMissing(variable: urlVariable)
        }
        return url
    }

    /// A configuration for a fresh, empty collection of its own on this server (created here), so
    /// tests never see each other's files.
    func freshConfiguration(
        settings: [String: String] = [:],
        password: String? = nil,
        auth: String? = nil
    ) async throws -> RemoteStoreConfiguration {
        let (user, defaultPassword) = try Self.credentials()
        var settings = settings
        settings["user"] = settings["user"] ?? user
        if let auth { settings["auth"] = auth }
        let root = RemoteStoreConfiguration(
            url: try rootURL(),
            settings: settings,
            secrets: ["password": defaultPassword]
        )
        let name = "test-\(UUID().uuidString)"
        let store = try WebDAVRemoteStore(configuration: root)
        try await store.createDirectory(at: RemotePath(name))
        await store.close()
        let url = try rootURL().appendingPathComponent(name, isDirectory: true)
        return RemoteStoreConfiguration(url: url, settings: settings, secrets: ["password": password ?? defaultPassword])
    }

    /// A store on the server's root collection (the conformance suite works in a unique
    /// directory of its own).
    func rootStore() throws -> WebDAVRemoteStore {
        let (user, password) = try Self.credentials()
        return try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(url: try rootURL(), settings: ["user": user], secrets: ["password": password])
        )
    }

    /// A store on a fresh, empty collection.
    func freshStore(settings: [String: String] = [:], auth: String? = nil) async throws -> WebDAVRemoteStore {
        try WebDAVRemoteStore(configuration: try await freshConfiguration(settings: settings, auth: auth))
    }
}

/// A test server's environment variable is missing (only thrown when the server is required or
/// the suite was enabled anyway).
struct TestServerMissing: Error, CustomStringConvertible {
    let variable: String
    var description: String { "\(variable) is not set: start the servers with Scripts/test-servers.sh start" }
}
