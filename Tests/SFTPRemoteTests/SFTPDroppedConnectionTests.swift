import Foundation
import RemoteProtocol
import RemoteTransportSupport
import SFTPRemote
import TestSupport
import Testing

/// A connection the server drops, resets or leaves silent, in every phase of an SFTP connection
/// (TCP connect, SSH handshake, login, SFTP start, transfer), through a ``FaultyTCPProxy`` in
/// front of the test sshd. Each must be a retryable `unavailable` or `timedOut` — never a refused
/// key — retried by the store's ``RetryPolicy``, and a call after the proxy heals must succeed.
@Suite("SFTP connections dropped in every phase", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPDroppedConnectionTests {
    /// One way to break a connection, for test names.
    struct Breakage: Sendable, CustomTestStringConvertible {
        var name: String
        var fault: FaultyTCPProxy.Fault
        var testDescription: String { name }
    }

    /// Connections dropped or reset before the store is open.
    static let drops: [Breakage] = [
        Breakage(name: "TCP connect: closed at once", fault: .closeAtAccept(greeting: nil)),
        Breakage(name: "TCP connect: 'Exceeded MaxStartups'", fault: .closeAtAccept(greeting: "Exceeded MaxStartups\r\n")),
        Breakage(name: "handshake: reset at the client's KEXINIT", fault: .cut(.sshClientMessage(20), reset: true)),
        Breakage(name: "handshake: cut during the key exchange", fault: .cut(.sshClientMessage(30), reset: false)),
        Breakage(name: "handshake: cut at the service request", fault: .cut(.sshEncryptedFlight(1), reset: false)),
        Breakage(name: "login: cut when asking for the methods", fault: .cut(.sshEncryptedFlight(2), reset: false)),
        Breakage(name: "login: cut when the key is offered", fault: .cut(.sshEncryptedFlight(3), reset: false)),
        Breakage(name: "login: reset when the key is offered", fault: .cut(.sshEncryptedFlight(3), reset: true)),
        Breakage(name: "login: cut at the signed login", fault: .cut(.sshEncryptedFlight(4), reset: false)),
        Breakage(name: "SFTP start: cut at the channel", fault: .cut(.sshEncryptedFlight(5), reset: false)),
    ]

    /// Connections that go silent before the store is open.
    static let stalls: [Breakage] = [
        Breakage(name: "TCP connect: a server that never speaks", fault: .stallAtAccept),
        Breakage(name: "handshake: stalled key exchange", fault: .stall(.sshClientMessage(30))),
        Breakage(name: "login: stalled when the key is offered", fault: .stall(.sshEncryptedFlight(3))),
        Breakage(name: "login: stalled at the signed login", fault: .stall(.sshEncryptedFlight(4))),
        Breakage(name: "SFTP start: stalled at the channel", fault: .stall(.sshEncryptedFlight(5))),
    ]

    /// The `timeout` setting of the stall tests: short, so they end quickly, but long enough for
    /// a healthy connection on a machine busy with the other tests.
    static let stallTimeout = "3"

    @Test(arguments: drops)
    func droppedConnectionIsUnavailableAndRetried(_ breakage: Breakage) async throws {
        let server = try SFTPTestServer.current()
        let proxy = try FaultyTCPProxy(forwardingTo: server.port)
        defer { proxy.stop() }

        proxy.inject(breakage.fault)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await openStore(through: proxy, on: server, retryPolicy: .never)
        }
        #expect(proxy.faultsFired == 1, "the fault did not strike: \(breakage.fault)")
        #expect(error?.code == .unavailable, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("refused") == false, "a dropped connection is not a refusal: \(error?.message ?? "")")
        if case .closeAtAccept(let greeting?) = breakage.fault {
            #expect(error?.message.contains(greeting.trimmingCharacters(in: .newlines)) == true, "the server's words are quoted")
        }

        // The store's retry policy gets past a drop that strikes once.
        proxy.inject(breakage.fault, connections: 1)
        let retried = try await openStore(through: proxy, on: server, retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20)))
        #expect(proxy.faultsFired == 2)
        try await expectWorks(retried)

        // Once the proxy heals, a store opened without retries works.
        proxy.heal()
        try await expectWorks(try await openStore(through: proxy, on: server, retryPolicy: .never))
    }

    @Test(arguments: stalls)
    func silentServerTimesOutAndIsRetried(_ breakage: Breakage) async throws {
        let server = try SFTPTestServer.current()
        let proxy = try FaultyTCPProxy(forwardingTo: server.port)
        defer { proxy.stop() }

        proxy.inject(breakage.fault)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await openStore(through: proxy, on: server, retryPolicy: .never, timeout: Self.stallTimeout)
        }
        #expect(proxy.faultsFired == 1, "the fault did not strike: \(breakage.fault)")
        #expect(error?.code == .timedOut, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)

        proxy.inject(breakage.fault, connections: 1)
        let retried = try await openStore(
            through: proxy, on: server, retryPolicy: RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(20)), timeout: Self.stallTimeout
        )
        try await expectWorks(retried)

        proxy.heal()
        try await expectWorks(try await openStore(through: proxy, on: server, retryPolicy: .never, timeout: Self.stallTimeout))
    }

    /// The connection drops in the middle of an upload: a retryable transport failure; once the proxy heals, the
    /// same store uploads on a fresh connection.
    @Test(arguments: [false, true])
    func uploadCutMidTransfer(reset: Bool) async throws {
        let server = try SFTPTestServer.current()
        let proxy = try FaultyTCPProxy(forwardingTo: server.port)
        defer { proxy.stop() }
        let scratch = try TemporaryDirectory(prefix: "sftp-drop")
        defer { scratch.remove() }
        let source = scratch.appending("big.bin")
        try LargeFile.write(source, bytes: 6 << 20, seed: 11)

        proxy.inject(.cut(.clientBytes(2 << 20), reset: reset))
        let url = server.uniqueURL(port: proxy.port)
        let store = try await openStore(through: proxy, on: server, url: url, retryPolicy: .never)
        let error = await #expect(throws: RemoteStoreError.self) { try await store.upload(contentsOf: source, to: "big.bin") }
        #expect(proxy.faultsFired == 1)
        // A transport failure either way: the cut is usually seen at once (unavailable), but on a
        // loaded machine libssh2 may notice it only when its wait ends (timedOut).
        #expect(error.map { [.unavailable, .timedOut].contains($0.code) } == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)

        proxy.heal()
        try await store.upload(contentsOf: source, to: "big.bin")
        #expect(try LargeFile.identical(source, server.localFolder(of: url).appendingPathComponent("big.bin")))
        await store.close()
        try? FileManager.default.removeItem(at: server.localFolder(of: url))
    }

    /// The connection drops, or stalls, in the middle of a download: `unavailable` or `timedOut`;
    /// the store's retry policy completes the download when the fault strikes once.
    @Test(arguments: [
        Breakage(name: "cut", fault: .cut(.serverBytes(2 << 20), reset: false)),
        Breakage(name: "reset", fault: .cut(.serverBytes(2 << 20), reset: true)),
        Breakage(name: "stall", fault: .stall(.serverBytes(2 << 20))),
    ])
    func downloadBrokenMidTransfer(_ breakage: Breakage) async throws {
        let server = try SFTPTestServer.current()
        let proxy = try FaultyTCPProxy(forwardingTo: server.port)
        defer { proxy.stop() }
        let url = server.uniqueURL(port: proxy.port)
        let remoteFolder = server.localFolder(of: url)
        let scratch = try TemporaryDirectory(prefix: "sftp-drop")
        defer { scratch.remove() }
        let copy = scratch.appending("copy.bin")

        let timeout = breakage.name == "stall" ? Self.stallTimeout : "10"
        proxy.inject(breakage.fault)
        let store = try await openStore(through: proxy, on: server, url: url, retryPolicy: .never, timeout: timeout)
        try LargeFile.write(remoteFolder.appendingPathComponent("big.bin"), bytes: 6 << 20, seed: 12)
        let error = await #expect(throws: RemoteStoreError.self) { try await store.download("big.bin", to: copy) }
        #expect(proxy.faultsFired == 1)
        let expected: [RemoteStoreError.Code] = breakage.name == "stall" ? [.timedOut] : [.unavailable, .timedOut]
        #expect(error.map { expected.contains($0.code) } == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        await store.close()

        proxy.inject(breakage.fault, connections: 1)
        let retrying = try await openStore(
            through: proxy, on: server, url: url, retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20)), timeout: timeout
        )
        try await retrying.download("big.bin", to: copy)
        #expect(proxy.faultsFired == 2)
        #expect(try LargeFile.identical(copy, remoteFolder.appendingPathComponent("big.bin")))
        await retrying.close()
        try? FileManager.default.removeItem(at: remoteFolder)
    }

    /// The conditions of the heap corruption once seen in a `rollsync` process (issue 27): three
    /// downloads at once, their pipelined reads in flight, when the connection is cut or reset at
    /// a random byte or the task is cancelled, round after round on one store whose pool keeps
    /// reconnecting. Each round ends in success, cancellation or a retryable error, leaves only
    /// complete files, and the store works afterwards. Scripts/sanitizers.sh runs 300 rounds under
    /// AddressSanitizer and 100 under ThreadSanitizer (`ROLLSYNC_SFTP_STRESS_ROUNDS`); other runs 20.
    @Test func pipelinedDownloadsCutOrCancelledOverAndOver() async throws {
        let rounds = Int(ProcessInfo.processInfo.environment["ROLLSYNC_SFTP_STRESS_ROUNDS"] ?? "") ?? 20
        let server = try SFTPTestServer.current()
        // Every cut round makes new connections: more than a proxy accepts by default. And the
        // 300 rounds of the AddressSanitizer run took 16 minutes on a loaded machine, past the
        // proxy's default lifetime: it lives 10 s more for every round.
        let proxy = try FaultyTCPProxy(
            forwardingTo: server.port, lifetime: .seconds(15 * 60 + 10 * rounds), maximumConnections: 16 * rounds + 64
        )
        defer { proxy.stop() }
        let url = server.uniqueURL(port: proxy.port)
        let remoteFolder = server.localFolder(of: url)
        let size = 3 << 20
        let original = remoteFolder.appendingPathComponent("big.bin")
        let scratch = try TemporaryDirectory(prefix: "sftp-stress")
        defer { scratch.remove() }
        let store = try await openStore(through: proxy, on: server, url: url, retryPolicy: .never)
        try LargeFile.write(original, bytes: size, seed: 21)
        var random = SplitMix64(seed: 27)
        var outcomes: [String: Int] = [:]
        for round in 0..<rounds {
            let action = random.next() % 3
            let offset = Int(random.next() % UInt64(size))
            let delay = Duration.milliseconds(Int(random.next() % 40))
            if action < 2 { proxy.inject(.cut(.serverBytes(offset), reset: action == 1)) } else { proxy.heal() }
            let copies = (0..<3).map { scratch.appending("copy-\(round)-\($0).bin") }
            let downloads = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for copy in copies { group.addTask { try await store.download("big.bin", to: copy) } }
                    try await group.waitForAll()
                }
            }
            if action == 2 {
                try await Task.sleep(for: delay)
                downloads.cancel()
            }
            let outcome: String
            do {
                try await downloads.value
                outcome = "complete"
            } catch is CancellationError {
                outcome = "cancelled"
            } catch let error as RemoteStoreError where error.isRetryable {
                outcome = "\(error.code)"
            }
            outcomes[outcome, default: 0] += 1
            for copy in copies where FileManager.default.fileExists(atPath: copy.path) {
                #expect(try LargeFile.identical(copy, original), "round \(round): a partial file was left")
                try FileManager.default.removeItem(at: copy)
            }
        }
        proxy.heal()
        // sshd may still be turning away new connections beyond its MaxStartups, which the rounds'
        // reconnections filled: the last download may retry.
        let last = scratch.appending("last.bin")
        try await RetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(200)).run {
            try await store.download("big.bin", to: last)
        }
        #expect(try LargeFile.identical(last, original))
        #expect(outcomes.count > 1, "every round ended the same way: \(outcomes)")
        #expect(proxy.acceptedConnections < proxy.maximumConnections, "the proxy turned connections away")
        print("SFTP stress, \(rounds) rounds: \(outcomes.sorted { $0.key < $1.key })")
        await store.close()
        try? FileManager.default.removeItem(at: remoteFolder)
    }

    /// The real thing: an sshd whose only unauthenticated slot (`MaxStartups 1`) is held by a
    /// client that never logs in drops the next connection at once. That is `unavailable`, and
    /// once the slot is free the retry policy gets through.
    @Test func sshdBeyondMaxStartupsIsUnavailable() async throws {
        let server = try SFTPTestServer.current()
        let sshd = try PrivateSSHServer(copying: server.sshdConfig, overriding: ["MaxStartups": "1"])
        try await sshd.start()
        defer { sshd.stop() }
        let url = server.uniqueURL(port: sshd.port)
        let settings = ["identity-file": server.identityFile, "host-key-fingerprint": server.hostFingerprint, "ssh-agent": "false"]

        let holder = try await Self.takeStartupSlot(port: sshd.port)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(url: url, settings: settings), retryPolicy: .never)
        }
        #expect(error?.code == .unavailable, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("Exceeded MaxStartups") == true, "sshd's words are quoted")

        // sshd frees the slot a moment after the holder leaves: the retry policy waits for it.
        close(holder)
        let store = try await SFTPRemoteStore(
            configuration: RemoteStoreConfiguration(url: url, settings: settings),
            retryPolicy: RetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200))
        )
        try await expectWorks(store)
    }

    /// libssh2 1.10 knows none of the key exchanges this sshd allows: libssh2 reports it like a key
    /// exchange cut short, so it is a retryable transport failure whose message names both causes.
    @Test func noCommonKeyExchangeIsReportedClearly() async throws {
        let server = try SFTPTestServer.current()
        let sshd = try PrivateSSHServer(copying: server.sshdConfig, overriding: ["KexAlgorithms": "sntrup761x25519-sha512@openssh.com"])
        try await sshd.start()
        defer { sshd.stop() }
        let error = await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(
                configuration: RemoteStoreConfiguration(
                    url: server.uniqueURL(port: sshd.port),
                    settings: ["identity-file": server.identityFile, "host-key-fingerprint": server.hostFingerprint]
                ),
                retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20))
            )
        }
        #expect(error?.code == .unavailable, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.isRetryable == true)
        // Either the key exchange's own failure, or the server's closing of the connection after it.
        #expect(error.map { $0.message.contains("in common") || $0.message.contains("closed the connection") } == true,
                "\(error.map { "\($0)" } ?? "")")
    }

    /// An sshd that ends the login itself after too many failed attempts (`MaxAuthTries`) closes
    /// the connection, but on purpose and saying why: that is a refusal, not a drop.
    @Test func serverEndingTheLoginAfterTooManyFailuresIsARefusal() async throws {
        let server = try SFTPTestServer.current()
        let sshd = try PrivateSSHServer(copying: server.sshdConfig, overriding: ["MaxAuthTries": "1"])
        try await sshd.start()
        defer { sshd.stop() }
        let scratch = try TemporaryDirectory(prefix: "sftp-drop")
        defer { scratch.remove() }
        let stranger = try await TestProcess.generateKey(type: "ed25519", in: scratch.url)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await SFTPRemoteStore(
                configuration: RemoteStoreConfiguration(
                    url: server.uniqueURL(port: sshd.port),
                    settings: ["identity-file": stranger, "host-key-fingerprint": server.hostFingerprint, "ssh-agent": "false"]
                ),
                retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(20))
            )
        }
        #expect(error?.code == .authenticationFailed, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.message.contains("Too many authentication failures") == true)
    }

    /// A real refusal through the same proxy stays an authentication failure: the check that
    /// tells drops from refusals does not turn refusals into drops.
    @Test func wrongKeyThroughTheProxyIsStillRefused() async throws {
        let server = try SFTPTestServer.current()
        let proxy = try FaultyTCPProxy(forwardingTo: server.port)
        defer { proxy.stop() }
        let scratch = try TemporaryDirectory(prefix: "sftp-drop")
        defer { scratch.remove() }
        let stranger = try await TestProcess.generateKey(type: "ed25519", in: scratch.url)
        let error = await #expect(throws: RemoteStoreError.self) {
            try await openStore(through: proxy, on: server, retryPolicy: .never, identityFile: stranger)
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.isRetryable == false)
    }

    // MARK: - Helpers

    /// Connects to the sshd on `port` and keeps the connection without a word, once sshd greeted it
    /// (so it holds one of sshd's unauthenticated "startup" slots); returns the socket.
    private static func takeStartupSlot(port: Int) async throws -> Int32 {
        for _ in 0..<200 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            var greeting = [UInt8](repeating: 0, count: 4)
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if connected, poll(&request, 1, 2000) > 0, recv(descriptor, &greeting, 4, Int32(MSG_PEEK)) == 4, greeting == Array("SSH-".utf8) {
                return descriptor
            }
            close(descriptor)
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("sshd never gave a startup slot on port \(port)")
    }

    private func openStore(
        through proxy: FaultyTCPProxy,
        on server: SFTPTestServer,
        url: URL? = nil,
        retryPolicy: RetryPolicy,
        timeout: String = "10",
        identityFile: String? = nil
    ) async throws -> SFTPRemoteStore {
        try await SFTPRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: url ?? server.uniqueURL(port: proxy.port),
                settings: [
                    "identity-file": identityFile ?? server.identityFile, "host-key-fingerprint": server.hostFingerprint,
                    "ssh-agent": "false", "timeout": timeout,
                ]
            ),
            retryPolicy: retryPolicy
        )
    }

    /// Writes and reads a file, then closes the store and removes its folder.
    private func expectWorks(_ store: SFTPRemoteStore) async throws {
        try await store.write(Data("still works".utf8), to: "check.txt")
        #expect(try await store.read("check.txt") == Data("still works".utf8))
        await store.close()
        try? FileManager.default.removeItem(atPath: store.url.path(percentEncoded: false))
    }
}
