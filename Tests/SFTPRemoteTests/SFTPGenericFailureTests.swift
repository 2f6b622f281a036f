import Foundation
import RemoteProtocol
import RemoteStoreConformance
import SFTPRemote
import Testing

/// The SFTP server of `Scripts/test-servers.d/sftp_generic.sh`: paramiko's SFTP server, made to
/// answer like servers other than OpenSSH (status 4 "failure" where OpenSSH says "no such file";
/// a file renamed onto a directory moves into it). Found through `ROLLSYNC_TEST_SFTP_GENERIC_*`.
struct SFTPGenericFailureServer: Sendable {
    var url: URL
    var identityFile: String
    var knownHostsFile: String

    private static let environment = ProcessInfo.processInfo.environment

    /// True when the server is configured, or required (then a missing server fails the test).
    static let isEnabled = environment["ROLLSYNC_TEST_SFTP_GENERIC_URL"] != nil
        || environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1"

    static let skipReason: Comment = "the generic-failure SFTP server is not running: run Scripts/test.sh, or Scripts/test-servers.sh start"

    static func current() throws -> SFTPGenericFailureServer {
        let url = try #require(environment["ROLLSYNC_TEST_SFTP_GENERIC_URL"].flatMap(URL.init(string:)), "ROLLSYNC_TEST_SFTP_GENERIC_URL is not set")
        return SFTPGenericFailureServer(
            url: url,
            identityFile: try #require(environment["ROLLSYNC_TEST_SFTP_GENERIC_IDENTITY"]),
            knownHostsFile: try #require(environment["ROLLSYNC_TEST_SFTP_GENERIC_KNOWN_HOSTS"])
        )
    }

    /// A store on `folder` of the server (created when the store opens it).
    func makeStore(folder: String) async throws -> SFTPRemoteStore {
        try await SFTPRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: url.appendingPathComponent(folder, isDirectory: true),
                settings: ["identity-file": identityFile, "known-hosts": knownHostsFile]
            )
        )
    }
}

/// The contract holds on an SFTP server that answers generic failures.
@Suite("SFTPRemote on a server that answers generic failures", .enabled(if: SFTPGenericFailureServer.isEnabled, SFTPGenericFailureServer.skipReason))
struct SFTPGenericFailureTests {
    static let folder = "conformance-\(UUID().uuidString)"

    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        let server = try SFTPGenericFailureServer.current()
        try await RemoteStoreConformance(makeStore: { try await server.makeStore(folder: Self.folder) })
            .run(check)
    }

    /// mkdir in a missing parent answers "failure": the walk up still creates every level.
    @Test func createDirectoryWalksUpPastGenericFailures() async throws {
        let store = try await SFTPGenericFailureServer.current().makeStore(folder: "walk-\(UUID().uuidString)")
        try await store.createDirectory(at: "a/b/c/d")
        #expect(try await store.exists("a/b/c/d")?.kind == .directory)
        await store.close()
    }

    /// Renaming onto a directory would move the upload into it: the target is looked at first.
    @Test func uploadOntoADirectoryLeavesItAlone() async throws {
        let store = try await SFTPGenericFailureServer.current().makeStore(folder: "onto-\(UUID().uuidString)")
        try await store.createDirectory(at: "dir")
        await #expect {
            try await store.write(Data("x".utf8), to: "dir")
        } throws: { error in
            (error as? RemoteStoreError)?.code == .isADirectory
        }
        #expect(try await store.list("dir").isEmpty)
        await store.close()
    }
}
