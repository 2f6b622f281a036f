import Foundation
import TestSupport
import Testing

/// `rollsync` against the real sshd and WebDAV servers of `Scripts/test-servers.sh`.
@Suite("rollsync through real servers")
struct ServerSyncTests {
    /// Initialises two databases on `remote` with `options`, then checks that changes travel both ways.
    func expectTwoWaySync(remote: String, options: [String], environment: [String: String?] = [:]) async throws {
        let workspace = try Workspace()
        let first = try workspace.makeNotesDatabase("first.sqlite")
        let second = try workspace.makeNotesDatabase("second.sqlite")
        for database in [first, second] {
            let outcome = try await RollsyncProcess.run(
                ["init", "--db", database, "--remote", remote, "--table", "notes"] + options, environment: environment
            )
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
        try workspace.execute("INSERT INTO notes VALUES ('1', 'one')", in: first)
        #expect(try await RollsyncProcess.run(["sync", "--db", first], environment: environment).status == 0)
        let pulled = try await RollsyncProcess.run(["sync", "--db", second], environment: environment)
        #expect(pulled.status == 0, "\(pulled.standardError)")
        try workspace.execute("UPDATE notes SET title = 'uno' WHERE id = '1'", in: second)
        #expect(try await RollsyncProcess.run(["sync", "--db", second], environment: environment).status == 0)
        #expect(try await RollsyncProcess.run(["sync", "--db", first], environment: environment).status == 0)
        #expect(try workspace.notes(in: first) == ["1=uno"])
        #expect(try workspace.notes(in: second) == ["1=uno"])
    }

    /// A fresh folder below the SFTP server's data folder.
    private func sftpRemote() throws -> String {
        try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_URL") + "/cli-\(UUID().uuidString)"
    }

    @Test("two databases sync through SFTP", .enabled(if: TestServerEnvironment.sftpEnabled))
    func sftp() async throws {
        try await expectTwoWaySync(
            remote: try sftpRemote(),
            options: [
                "--identity-file", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_IDENTITY"),
                "--known-hosts", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"),
            ]
        )
    }

    @Test("an unknown SFTP host prints its fingerprint and how to trust it", .enabled(if: TestServerEnvironment.sftpEnabled))
    func unknownHostKey() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let knownHosts = workspace.path("known_hosts")
        try Data().write(to: URL(fileURLWithPath: knownHosts))
        let options = ["--identity-file", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_IDENTITY"), "--known-hosts", knownHosts]
        let remote = try sftpRemote()
        let before = workspace.fingerprint(of: database)

        let refused = try await RollsyncProcess.run(["init", "--db", database, "--remote", remote, "--table", "notes"] + options)
        #expect(refused.status == 3)
        #expect(refused.standardError.contains(try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_HOST_FINGERPRINT")))
        #expect(refused.standardError.contains("--trust-on-first-use"))
        #expect(workspace.fingerprint(of: database) == before)

        let trusted = try await RollsyncProcess.run(
            ["init", "--db", database, "--remote", remote, "--table", "notes", "--trust-on-first-use"] + options
        )
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(try String(contentsOfFile: knownHosts, encoding: .utf8).contains("127.0.0.1"))
    }

    @Test(
        "two databases sync through WebDAV",
        .enabled(if: TestServerEnvironment.webDAVEnabled),
        arguments: [
            "ROLLSYNC_TEST_WEBDAV_APACHE_URL", "ROLLSYNC_TEST_WEBDAV_WSGIDAV_URL", "ROLLSYNC_TEST_WEBDAV_NGINX_URL",
            "ROLLSYNC_TEST_WEBDAV_LIGHTTPD_URL",
        ]
    )
    func webDAV(urlVariable: String) async throws {
        try await expectTwoWaySync(
            remote: try TestServerEnvironment.value(urlVariable),
            options: ["--user", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_USER"), "--app", "cli-\(UUID().uuidString)"],
            environment: ["ROLLSYNC_WEBDAV_PASSWORD": try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_PASSWORD")]
        )
    }

    @Test("a wrong WebDAV password is an authentication error", .enabled(if: TestServerEnvironment.webDAVEnabled))
    func wrongWebDAVPassword() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let before = workspace.fingerprint(of: database)
        let outcome = try await RollsyncProcess.run(
            [
                "init", "--db", database, "--remote", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_APACHE_URL"), "--table", "notes",
                "--user", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_USER"), "--app", "cli-\(UUID().uuidString)",
            ],
            environment: ["ROLLSYNC_WEBDAV_PASSWORD": "not-the-password", "HOME": workspace.directory.path]
        )
        #expect(outcome.status == 3, "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("not-the-password"))
        #expect(workspace.fingerprint(of: database) == before)
    }
}
