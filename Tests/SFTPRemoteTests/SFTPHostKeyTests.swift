import Foundation
import RemoteProtocol
import SFTPRemote
import TestSupport
import Testing

@Suite("SFTP host-key verification", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPHostKeyTests {
    @Test func unknownHostFailsWithTheFingerprintAndHowToTrustIt() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let knownHosts = folder.appendingPathComponent("known_hosts").path

        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(settings: ["known-hosts": knownHosts])
        }
        #expect(error?.code == .hostKeyUnknown)
        #expect(error?.message.contains(server.hostFingerprint) == true)
        #expect(error?.message.contains("trust-on-first-use") == true)
        #expect(error?.message.contains("host-key-fingerprint") == true)
        #expect(!FileManager.default.fileExists(atPath: knownHosts), "nothing is recorded without trust-on-first-use")
    }

    @Test func changedHostKeyIsAMismatchEvenWithTrustOnFirstUse() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let impostor = try await TestProcess.generateKey(type: "ed25519", in: folder)
        let impostorKey = try String(contentsOfFile: impostor + ".pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        let knownHosts = folder.appendingPathComponent("known_hosts")
        try "[\(server.host)]:\(server.port) \(impostorKey)\n".write(to: knownHosts, atomically: true, encoding: .utf8)

        for trust in ["false", "true"] {
            let error = await #expect(throws: RemoteStoreError.self) {
                try await server.makeStore(settings: ["known-hosts": knownHosts.path, "trust-on-first-use": trust])
            }
            #expect(error?.code == .hostKeyMismatch)
            #expect(error?.message.contains(server.hostFingerprint) == true)
            #expect(error?.message.contains("ssh-keygen -R") == true)
        }
    }

    @Test func trustOnFirstUseRecordsTheKeyForLaterConnections() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let knownHosts = folder.appendingPathComponent("sub/known_hosts").path

        let first = try await server.makeStore(settings: ["known-hosts": knownHosts, "trust-on-first-use": "true"])
        await first.close()
        let recorded = try String(contentsOfFile: knownHosts, encoding: .utf8)
        #expect(recorded.hasPrefix("[\(server.host)]:\(server.port) ssh-ed25519 "))
        #expect(await TestProcess.fingerprints(ofKnownHosts: knownHosts).contains(server.hostFingerprint))

        let second = try await server.makeStore(settings: ["known-hosts": knownHosts])
        #expect(try await second.list(.root).isEmpty)
        await second.close()
    }

    @Test func hashedKnownHostsEntriesAreRecognised() async throws {
        let server = try SFTPTestServer.current()
        let scratch = try TemporaryDirectory(prefix: "sftp-test")
        defer { scratch.remove() }
        let folder = scratch.url
        let knownHosts = folder.appendingPathComponent("known_hosts")
        let comment = "# a comment, and a line libssh2 cannot parse, are both skipped\n@cert-authority *.example.com ssh-ed25519 AAAA\n"
        try (comment + String(contentsOfFile: server.knownHostsFile, encoding: .utf8)).write(to: knownHosts, atomically: true, encoding: .utf8)
        try await TestProcess.runChecked("/usr/bin/ssh-keygen", ["-q", "-H", "-f", knownHosts.path])
        #expect(try String(contentsOf: knownHosts, encoding: .utf8).contains("|1|"))

        let store = try await server.makeStore(settings: ["known-hosts": knownHosts.path])
        await store.close()
    }

    @Test func pinnedFingerprintIsCheckedInsteadOfKnownHosts() async throws {
        let server = try SFTPTestServer.current()
        let store = try await server.makeStore(settings: [
            "known-hosts": "/nonexistent/known_hosts", "host-key-fingerprint": server.hostFingerprint,
        ])
        await store.close()

        let other = "SHA256:" + String(repeating: "A", count: 43)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await server.makeStore(settings: ["host-key-fingerprint": other])
        }
        #expect(error?.code == .hostKeyMismatch)
        #expect(error?.message.contains(server.hostFingerprint) == true)
        #expect(error?.message.contains(other) == true)
    }
}
