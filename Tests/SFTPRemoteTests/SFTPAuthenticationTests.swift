import Foundation
import RemoteProtocol
import SFTPRemote
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("SFTP authentication", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPAuthenticationTests {
    @Test func clientKeyLogsIn() async throws {
        let server = try SFTPTestServer.current()
        let store = try await server.makeStore()
        #expect(try await store.list(.root).isEmpty)
        await store.close()
    }

    @Test func wrongKeyIsAnAuthenticationFailure() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let stranger = try await TestProcess.generateKey(type: "ed25519", in: folder)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(settings: ["identity-file": stranger])
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains(stranger) == true)
        #expect(error?.isRetryable == false)
    }

    @Test func wrongUserIsAnAuthenticationFailure() async throws {
        let server = try SFTPTestServer.current()
        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(url: server.uniqueURL(user: "nobody"))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("'nobody'") == true)
    }

    @Test func missingKeyFileIsAnAuthenticationFailureNamingIt() async throws {
        let server = try SFTPTestServer.current()
        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(settings: ["identity-file": "/nonexistent/rollsync-key"])
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("/nonexistent/rollsync-key (missing or unreadable)") == true)
    }

    @Test func rsaKeyFailureExplainsTheLibssh2Limitation() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let rsa = try await TestProcess.generateKey(type: "rsa", in: folder)
        try FileManager.default.removeItem(atPath: rsa + ".pub")  // the type must come from the private key itself
        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(settings: ["identity-file": rsa])
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("is an RSA key") == true)
        #expect(error?.message.contains("ed25519") == true)
    }

    @Test(arguments: ["ed25519", "ecdsa"])
    func passphraseProtectedKeyLogsIn(type: String) async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let passphrase = "correct horse \(UUID().uuidString)"
        let key = try await TestProcess.generateKey(type: type, in: folder, passphrase: passphrase)
        try authorize(publicKeyOf: key, on: server)

        let store = try await server.makeStore(settings: ["identity-file": key], secrets: ["passphrase": passphrase])
        try await store.write(Data("x".utf8), to: "file")
        #expect(try await store.read("file") == Data("x".utf8))
        await store.close()

        let wrong = "wrong \(UUID().uuidString)"
        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(settings: ["identity-file": key], secrets: ["passphrase": wrong])
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("passphrase") == true)
        #expect(error.map { "\($0)".contains(wrong) } == false)
    }

    @Test func sshAgentKeyLogsIn() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let key = try await TestProcess.generateKey(type: "ed25519", in: folder)
        try authorize(publicKeyOf: key, on: server)
        let socket = folder.appendingPathComponent("agent.sock").path
        let agent = try SpawnedProcess(["/usr/bin/ssh-agent", "-D", "-a", socket])
        defer { agent.stop() }
        try await waitUntil("ssh-agent listens") { FileManager.default.fileExists(atPath: socket) }
        try await TestProcess.runChecked("/usr/bin/ssh-add", ["-q", key], environment: ["SSH_AUTH_SOCK": socket])
        try FileManager.default.removeItem(atPath: key)  // only the agent holds the key now

        let store = try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(
            url: server.uniqueURL(), settings: ["known-hosts": server.knownHostsFile, "ssh-agent": socket]
        ))
        try await store.write(Data("via the agent".utf8), to: "agent.txt")
        #expect(try await store.read("agent.txt") == Data("via the agent".utf8))
        try await store.delete(.root / "agent.txt")
        await store.close()
    }

    /// An agent socket nobody listens on (an agent that died, a stale `SSH_AUTH_SOCK`) is passed
    /// over before libssh2 sees it: libssh2 closes the socket of a failed agent connection twice,
    /// the second time perhaps another thread's descriptor. With a key the server refuses, the
    /// login reaches the agent and reports that none answers.
    @Test func staleAgentSocketIsPassedOver() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let stranger = try await TestProcess.generateKey(type: "ed25519", in: scratch.url)
        let socket = scratch.appending("stale.sock").path
        let bound = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(bound) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socket.utf8)) }
        let bindResult = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(bound, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bindResult == 0, "bound, never listening: a connection is refused")
        let error = await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(
                url: server.uniqueURL(),
                settings: ["identity-file": stranger, "host-key-fingerprint": server.hostFingerprint, "ssh-agent": socket]
            ))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("none answers at \(socket)") == true, "\(error.map { "\($0)" } ?? "")")
    }

    @Test func typedConfigurationOpensTheStore() async throws {
        let server = try SFTPTestServer.current()
        let url = server.uniqueURL()
        var configuration = SFTPRemoteStore.Configuration(
            host: server.host, port: server.port, user: "root", root: .absolute(url.path(percentEncoded: false)),
            identityFile: server.identityFile
        )
        configuration.hostKeyFingerprint = server.hostFingerprint
        configuration.sshAgent = .none
        let store = try await SFTPRemoteStore(configuration: configuration)
        try await store.write(Data("typed".utf8), to: "typed.txt")
        #expect(try await store.read("typed.txt") == Data("typed".utf8))
        #expect(store.url.path(percentEncoded: false) == url.path(percentEncoded: false))
        await store.close()
        try? FileManager.default.removeItem(at: server.localFolder(of: url))
    }

    /// Needs the password account that sshd.sh creates when it runs as root (always in CI).
    @Test(.enabled(if: SFTPTestServer.hasPasswordAccount, "sshd.sh could not create the password account (it must run as root)"))
    func passwordLogsInAndAWrongPasswordFails() async throws {
        let server = try SFTPTestServer.current()
        let user = try #require(server.passwordUser, "ROLLSYNC_TEST_SFTP_PASSWORD_USER is not set: sshd.sh could not create the password account")
        let password = try #require(server.password)
        let url = URL(string: "sftp://\(user)@\(server.host):\(server.port)/~/rollsync-\(UUID().uuidString)")!

        let store = try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(
            url: url, settings: ["known-hosts": server.knownHostsFile, "ssh-agent": "false"], secrets: ["password": password]
        ))
        try await store.write(Data("through a password login".utf8), to: "note.txt")
        #expect(try await store.list(.root).map(\.name) == ["note.txt"])
        await store.close()

        let wrong = "not-the-password-\(UUID().uuidString)"
        let error = await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(
                url: url, settings: ["known-hosts": server.knownHostsFile, "ssh-agent": "false"], secrets: ["password": wrong]
            ))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("the password") == true)
        #expect(error.map { "\($0)".contains(wrong) } == false)

        let cleanup = try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(
            url: URL(string: "sftp://\(user)@\(server.host):\(server.port)/~")!,
            settings: ["known-hosts": server.knownHostsFile, "ssh-agent": "false"], secrets: ["password": password]
        ))
        try await cleanup.delete(RemotePath(url.lastPathComponent))
        await cleanup.close()
    }

    /// Appends the key's public half to the shared server's authorized_keys (read at each login).
    private func authorize(publicKeyOf key: String, on server: SFTPTestServer) throws {
        let authorizedKeys = URL(fileURLWithPath: server.identityFile).deletingLastPathComponent().appendingPathComponent("authorized_keys")
        let line = try String(contentsOfFile: key + ".pub", encoding: .utf8)
        let handle = try FileHandle(forWritingTo: authorizedKeys)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
    }
}
