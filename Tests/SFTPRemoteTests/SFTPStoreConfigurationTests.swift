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
}
