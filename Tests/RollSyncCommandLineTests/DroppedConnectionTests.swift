import Foundation
import TestSupport
import Testing

/// `rollsync` against the test sshd and Apache behind a ``FaultyTCPProxy``: a connection dropped
/// during the login is a remote error to run again (exit 2) with a hint about the SSH server, never
/// a refused key (exit 3); the backend retries it first; real refusals stay exit 3 with hints that
/// name the backend's own settings.
@Suite("rollsync when the server drops the connection")
struct DroppedConnectionTests {
    @Test("a connection dropped by sshd during the login exits 2 with an SFTP hint", .enabled(if: TestServerEnvironment.sftpEnabled))
    func sshConnectionDroppedDuringLogin() async throws {
        let server = try #require(URLComponents(string: try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_URL")))
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(server.port))
        defer { proxy.stop() }
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let folder = "\(server.path)/cli-\(UUID().uuidString)"
        let remote = "sftp://root@127.0.0.1:\(proxy.port)\(folder)"
        let options = [
            "--identity-file", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_IDENTITY"),
            "--host-key-fingerprint", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_HOST_FINGERPRINT"),
        ]
        let environment: [String: String?] = ["SSH_AUTH_SOCK": nil, "HOME": workspace.directory.path]
        let initialised = try await RollsyncProcess.run(
            ["init", "--db", database, "--remote", remote, "--table", "notes"] + options, environment: environment
        )
        #expect(initialised.status == 0, "\(initialised.standardError)")
        try workspace.execute("INSERT INTO notes VALUES ('1', 'one')", in: database)

        // sshd drops every connection right after the key is offered (as an overloaded or
        // restarting server does): the backend retries, then rollsync gives up with exit 2.
        proxy.inject(.cut(.sshEncryptedFlight(3), reset: false))
        let dropped = try await RollsyncProcess.run(["sync", "--db", database], environment: environment)
        #expect(dropped.status == 2, "\(dropped.standardError)")
        #expect(proxy.faultsFired > 1, "the backend's retry policy tried again")
        #expect(!dropped.standardError.contains("refused"), "\(dropped.standardError)")
        #expect(!dropped.standardError.contains("ROLLSYNC_WEBDAV_PASSWORD"), "\(dropped.standardError)")
        let hint = dropped.standardError.split(separator: "\n").first { $0.hasPrefix("hint: ") } ?? ""
        #expect(hint.contains("SSH server") && hint.contains("sshd"), "\(dropped.standardError)")

        // A drop that strikes once is absorbed by the retry policy.
        proxy.inject(.cut(.sshEncryptedFlight(3), reset: false), connections: 1)
        let retried = try await RollsyncProcess.run(["sync", "--db", database], environment: environment)
        #expect(retried.status == 0, "\(retried.standardError)")

        // Once the server behaves, syncing works and has nothing left to push.
        proxy.heal()
        let healed = try await RollsyncProcess.run(["sync", "--db", database], environment: environment)
        #expect(healed.status == 0, "\(healed.standardError)")
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test("a refused SSH key exits 3 with a hint naming the SFTP settings only", .enabled(if: TestServerEnvironment.sftpEnabled))
    func refusedSSHKeyHintNamesSFTPSettings() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let stranger = workspace.path("stranger_ed25519")
        try await TestProcess.runChecked("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", stranger])
        let outcome = try await RollsyncProcess.run(
            [
                "init", "--db", database, "--remote", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_URL") + "/cli-\(UUID().uuidString)",
                "--table", "notes", "--identity-file", stranger,
                "--known-hosts", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"),
            ],
            environment: ["SSH_AUTH_SOCK": nil, "HOME": workspace.directory.path]
        )
        #expect(outcome.status == 3, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("refused user 'root'"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("ROLLSYNC_SFTP_PASSPHRASE") && outcome.standardError.contains("--identity-file"))
        #expect(!outcome.standardError.contains("WEBDAV"), "\(outcome.standardError)")
    }

    @Test("a refused WebDAV password exits 3 with a hint naming the WebDAV settings only", .enabled(if: TestServerEnvironment.webDAVEnabled))
    func refusedWebDAVPasswordHintNamesWebDAVSettings() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let outcome = try await RollsyncProcess.run(
            [
                "init", "--db", database, "--remote", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_APACHE_URL"), "--table", "notes",
                "--user", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_USER"), "--app", "cli-\(UUID().uuidString)",
            ],
            environment: ["ROLLSYNC_WEBDAV_PASSWORD": "not-the-password", "HOME": workspace.directory.path]
        )
        #expect(outcome.status == 3, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("ROLLSYNC_WEBDAV_PASSWORD") && outcome.standardError.contains(".netrc"))
        #expect(!outcome.standardError.contains("SFTP") && !outcome.standardError.contains("identity-file"), "\(outcome.standardError)")
    }

    @Test("a WebDAV server that drops every connection exits 2 with a WebDAV hint", .enabled(if: TestServerEnvironment.webDAVEnabled))
    func webDAVConnectionDropped() async throws {
        let server = try #require(URLComponents(string: try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_APACHE_URL")))
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(server.port))
        defer { proxy.stop() }
        proxy.inject(.cut(.clientFlight(1), reset: false))
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let outcome = try await RollsyncProcess.run(
            [
                "init", "--db", database, "--remote", "webdav://127.0.0.1:\(proxy.port)/", "--table", "notes",
                "--user", try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_USER"), "--app", "cli-\(UUID().uuidString)",
            ],
            environment: ["ROLLSYNC_WEBDAV_PASSWORD": try TestServerEnvironment.value("ROLLSYNC_TEST_WEBDAV_PASSWORD"), "HOME": workspace.directory.path]
        )
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(proxy.faultsFired > 1, "the backend's retry policy tried again")
        let hint = outcome.standardError.split(separator: "\n").first { $0.hasPrefix("hint: ") } ?? ""
        #expect(hint.contains("WebDAV server") && !hint.contains("sshd"), "\(outcome.standardError)")
    }
}
