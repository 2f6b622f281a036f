import Foundation
import RemoteProtocol
import SFTPRemote
import Testing

/// The sshd started by `Scripts/test-servers.sh` (see `Scripts/test-servers.d/sshd.sh`), as
/// described by the `ROLLSYNC_TEST_SFTP_*` environment variables.
///
/// Suites use ``isEnabled`` as their `.enabled(if:)` condition: without the variables they skip
/// with a printed reason, unless `ROLLSYNC_REQUIRE_TEST_SERVERS=1` (CI), where ``current()`` then
/// fails the test instead.
struct SFTPTestServer: Sendable {
    /// `sftp://root@127.0.0.1:PORT/<data folder>`.
    var url: URL
    var identityFile: String
    var knownHostsFile: String
    var hostFingerprint: String
    /// The data folder as a local path (the server runs on this machine).
    var dataFolder: URL
    var sshdConfig: String
    var passwordUser: String?
    var password: String?

    static let environment = ProcessInfo.processInfo.environment

    /// True when the server is configured, or required (then a missing server fails the test).
    static let isEnabled = configured != nil || environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1"

    /// True when the password account exists, or when test servers are required (then its
    /// absence fails the test).
    static let hasPasswordAccount = environment["ROLLSYNC_TEST_SFTP_PASSWORD_USER"] != nil
        || environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1"

    /// Why the suites skip.
    static let skipReason: Comment = "the SFTP test server is not running: run Scripts/test.sh, or Scripts/test-servers.sh start and source .test-servers/env"

    private static let configured: SFTPTestServer? = {
        guard let url = environment["ROLLSYNC_TEST_SFTP_URL"].flatMap(URL.init(string:)),
            let identity = environment["ROLLSYNC_TEST_SFTP_IDENTITY"],
            let knownHosts = environment["ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"],
            let fingerprint = environment["ROLLSYNC_TEST_SFTP_HOST_FINGERPRINT"],
            let data = environment["ROLLSYNC_TEST_SFTP_DATA"],
            let config = environment["ROLLSYNC_TEST_SFTP_CONFIG"]
        else { return nil }
        return SFTPTestServer(
            url: url, identityFile: identity, knownHostsFile: knownHosts, hostFingerprint: fingerprint,
            dataFolder: URL(fileURLWithPath: data), sshdConfig: config,
            passwordUser: environment["ROLLSYNC_TEST_SFTP_PASSWORD_USER"], password: environment["ROLLSYNC_TEST_SFTP_PASSWORD"]
        )
    }()

    /// The configured server; fails the calling test if it is missing (only reached when required).
    static func current() throws -> SFTPTestServer {
        try #require(configured, "ROLLSYNC_REQUIRE_TEST_SERVERS=1 but ROLLSYNC_TEST_SFTP_* is not set: the sshd test server did not start")
    }

    var host: String { url.host() ?? "127.0.0.1" }
    var port: Int { url.port ?? 22 }

    /// A URL for a fresh, unique folder below the data folder (created when a store opens it).
    func uniqueURL(user: String = "root", port: Int? = nil) -> URL {
        URL(string: "sftp://\(user)@\(host):\(port ?? self.port)\(dataFolder.path)/\(UUID().uuidString)")!
    }

    /// The local path of the folder a store opened with `url` works in.
    func localFolder(of url: URL) -> URL {
        URL(fileURLWithPath: url.path(percentEncoded: false))
    }

    /// Settings that log in as root with the client key and check the recorded host key.
    var keySettings: [String: String] {
        ["identity-file": identityFile, "known-hosts": knownHostsFile]
    }

    /// Opens a store on a fresh folder with the client key.
    func makeStore(url: URL? = nil, settings extra: [String: String] = [:], secrets: [String: String] = [:]) async throws -> SFTPRemoteStore {
        try await SFTPRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: url ?? uniqueURL(),
                settings: keySettings.merging(extra) { $1 },
                secrets: secrets
            )
        )
    }
}
