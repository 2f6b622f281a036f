import Foundation
import RemoteProtocol
import RemoteTransportSupport
import SFTPRemote
import TestSupport
import Testing

/// Invalid URLs, settings and secrets are refused with a clear `unsupported` error before any
/// connection is attempted (no server needed).
struct SFTPStoreConfigurationTests {
    private func openingFails(
        _ url: String, settings: [String: String] = [:], secrets: [String: String] = [:]
    ) async -> RemoteStoreError? {
        await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(url: URL(string: url)!, settings: settings, secrets: secrets))
        }
    }

    @Test func wrongSchemeIsRefused() async {
        let error = await openingFails("ftp://alice@host/path")
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("not an sftp:// URL") == true)
    }

    @Test func missingHostIsRefused() async {
        let error = await openingFails("sftp:///path")
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("names no host") == true)
    }

    @Test func passwordInTheURLIsRefusedWithoutPrintingIt() async {
        let error = await openingFails("sftp://alice:hunter2secret@host/path")
        #expect(error?.code == .unsupported)
        #expect(error.map { "\($0)".contains("hunter2secret") } == false)
    }

    @Test func unknownSettingIsRefusedNamingTheKnownOnes() async {
        let error = await openingFails("sftp://alice@host/path", settings: ["knownhosts": "/tmp/x"])
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("'knownhosts'") == true)
        #expect(error?.message.contains("known-hosts") == true)
    }

    @Test func unknownSecretIsRefusedWithoutPrintingItsValue() async {
        let error = await openingFails("sftp://alice@host/path", secrets: ["pasword": "s3cr3t-value"])
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("'pasword'") == true)
        #expect(error.map { "\($0)".contains("s3cr3t-value") } == false)
    }

    @Test(arguments: [
        ("host-key-fingerprint", "MD5:aa:bb"),
        ("trust-on-first-use", "maybe"),
        ("timeout", "-3"),
        ("connections", "0"),
        ("connections", "17"),
        ("ssh-agent", "sometimes"),
    ])
    func invalidSettingValueIsRefused(key: String, value: String) async {
        let error = await openingFails("sftp://alice@host/path", settings: [key: value])
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("'\(key)'") == true)
    }

    @Test func pinnedFingerprintAndTrustOnFirstUseExcludeEachOther() async {
        let fingerprint = "SHA256:" + String(repeating: "A", count: 43)
        let error = await openingFails(
            "sftp://alice@host/path", settings: ["host-key-fingerprint": fingerprint, "trust-on-first-use": "true"]
        )
        #expect(error?.code == .unsupported)
    }

    @Test func unreachableServerIsUnavailableAndRetryable() async throws {
        let port = try LoopbackPort.unused()
        let error = await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(
                configuration: RemoteStoreConfiguration(url: URL(string: "sftp://alice@127.0.0.1:\(port)/path")!),
                retryPolicy: .never
            )
        }
        #expect(error?.code == .unavailable)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("127.0.0.1:\(port)") == true)
    }

    @Test func registersTheSFTPScheme() {
        let registry = RemoteStoreRegistry()
        registry.register(SFTPRemoteStore.self)
        #expect(registry.schemes == ["sftp"])
    }

    @Test func urlSettingsAndSecretsReadIntoTheTypedConfiguration() throws {
        let configuration = try SFTPRemoteStore.Configuration(
            RemoteStoreConfiguration(
                url: URL(string: "sftp://alice@[::1]:2222/~/sync/")!,
                settings: ["known-hosts": "/etc/ssh/known", "ssh-agent": "false", "connections": "2", "timeout": "1.5"],
                secrets: [SFTPRemoteStore.SecretName.password: "pw", SFTPRemoteStore.SecretName.passphrase: "phrase"]
            ),
            environment: ["USER": "nobody"]
        )
        #expect(configuration.host == "::1" && configuration.port == 2222 && configuration.user == "alice")
        #expect(configuration.root == .home("sync"))
        #expect(configuration.knownHostsFile == "/etc/ssh/known" && configuration.sshAgent == SFTPRemoteStore.Configuration.SSHAgent.none)
        #expect(configuration.connectionCount == 2 && configuration.timeout == .milliseconds(1500))
        #expect(configuration.password == "pw" && configuration.passphrase == "phrase")

        let defaults = try SFTPRemoteStore.Configuration(
            RemoteStoreConfiguration(url: URL(string: "sftp://host/srv/sync")!),
            environment: ["USER": "bob", "SSH_AUTH_SOCK": "/tmp/agent"]
        )
        #expect(defaults.user == "bob" && defaults.root == .absolute("/srv/sync") && defaults.sshAgent == .standard)
        #expect(defaults.knownHostsFile == "~/.ssh/known_hosts" && defaults.connectionCount == 4)
    }

    @Test func typedConfigurationPrintsNoSecret() {
        var configuration = SFTPRemoteStore.Configuration(
            host: "sync.example.com", user: "alice", root: .absolute("/srv/sync"), password: "hunter2-password"
        )
        configuration.passphrase = "hunter2-passphrase"
        let text = "\(configuration)"
        #expect(text.contains("sftp://alice@sync.example.com/srv/sync"))
        #expect(text.contains("password=<redacted>") && text.contains("passphrase=<redacted>"))
        #expect(!text.contains("hunter2"))
    }

    @Test func invalidTypedConfigurationIsRefusedBeforeConnecting() async {
        let changes: [(String, (inout SFTPRemoteStore.Configuration) -> Void)] = [
            ("connection count", { $0.connectionCount = 0 }),
            ("port", { $0.port = 0 }),
            ("timeout", { $0.timeout = .zero }),
            ("host-key-fingerprint", { $0.hostKeyFingerprint = "MD5:aa:bb" }),
        ]
        for (name, change) in changes {
            var configuration = SFTPRemoteStore.Configuration(host: "127.0.0.1", port: 1, user: "alice")
            change(&configuration)
            let error = await #expect(throws: RemoteStoreError.self) { try await SFTPRemoteStore(configuration: configuration) }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains(name) == true)
        }
    }
}
