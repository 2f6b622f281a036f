import Foundation
import TestSupport
import Testing

/// Every `rollsync` command disconnects from the server before the process exits, on success and
/// on failure. Commands now close their store before returning: a connection released by ARC on
/// another thread while `exit` ran OpenSSL's clean-up (which frees the locks libssh2 takes) once
/// crashed the process (signal 11 in `pthread_rwlock_wrlock`). That race is too rare to provoke
/// here; this checks the outcome the closing guarantees, that sshd sees every connection end with
/// the client's disconnect message, never a dropped socket.
@Suite("rollsync closes its remote connections before it exits")
struct CleanExitTests {
    @Test("init, sync, clients and a failing restore each end their SSH connections with a disconnect", .enabled(if: TestServerEnvironment.sftpEnabled))
    func sshConnectionsEndWithDisconnect() async throws {
        let server = try #require(URLComponents(string: try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_URL")))
        let log = try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_LOG")
        // Only what sshd logs from now on: an earlier connection from the same port number (the
        // log holds every test's) must not answer for one of these.
        let logStart = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? NSNumber).intValue
        // The proxy only names the connections: sshd logs each by the proxy's port towards it.
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(server.port))
        defer { proxy.stop() }
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let folder = "\(server.path)/cli-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let options = [
            "--identity-file", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_IDENTITY"),
            "--host-key-fingerprint", try TestServerEnvironment.value("ROLLSYNC_TEST_SFTP_HOST_FINGERPRINT"),
        ]
        let environment: [String: String?] = ["SSH_AUTH_SOCK": nil, "HOME": workspace.directory.path]

        let initialised = try await RollsyncProcess.run(
            ["init", "--db", database, "--remote", "sftp://root@127.0.0.1:\(proxy.port)\(folder)", "--table", "notes"] + options,
            environment: environment
        )
        #expect(initialised.status == 0, "\(initialised.standardError)")
        try workspace.execute("INSERT INTO notes VALUES ('1', 'one')", in: database)
        let synced = try await RollsyncProcess.run(["sync", "--db", database], environment: environment)
        #expect(synced.status == 0, "\(synced.standardError)")
        let clients = try await RollsyncProcess.run(["clients", "--db", database], environment: environment)
        #expect(clients.status == 0, "\(clients.standardError)")
        let failed = try await RollsyncProcess.run(
            ["restore", "--db", database, "--before-set", "no-such-set", "--to", workspace.path("restored.sqlite")], environment: environment
        )
        #expect(failed.status != 0, "restoring before a change set that does not exist fails")

        let ports = proxy.upstreamLocalPorts
        #expect(ports.count >= 4, "each command connected at least once")
        for port in ports {
            let lines = try await Self.endOfConnection(fromPort: port, in: log, from: logStart)
            #expect(
                lines.contains { $0.contains("Received disconnect from 127.0.0.1 port \(port):11: bye") },
                "the connection from port \(port) ended without the client's disconnect: \(lines)"
            )
        }
    }

    /// The lines of sshd's log after byte `offset` about the connection from `port`, once sshd has
    /// logged its end (sshd writes it when it notices the end; waited for, up to a minute).
    private static func endOfConnection(fromPort port: Int, in log: String, from offset: Int) async throws -> [String] {
        let name = "127.0.0.1 port \(port)"
        for _ in 0..<600 {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: log)).dropFirst(offset), as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init).filter {
                $0.contains(name + ":") || $0.hasSuffix(name) || $0.contains(name + " ")
            }
            if lines.contains(where: { $0.contains("Disconnected from") || $0.contains("Connection closed") || $0.contains("Connection reset") }) {
                return lines
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("sshd logged no end of the connection from port \(port) within a minute")
        return []
    }
}
