import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A tiny TCP proxy on 127.0.0.1 in front of a loopback server (the test sshd or Apache) that
/// forwards faithfully until told to misbehave: to close or reset connections at a chosen moment —
/// at accept, after some bytes, at a given SSH message or login step — or to stall them there.
///
/// Tests use it to drop a connection in each phase (TCP connect, SSH or TLS handshake, login,
/// transfer) and check that the client reports a retryable failure, retries, and works once the
/// proxy heals.
///
/// - A fault applies to connections accepted after ``inject(_:connections:strikes:)``, to the
///   next `connections` of them only if a count is given, and strikes at most `strikes` times in
///   all, until the next `inject` or ``heal()``: from then on it strikes no more, on new
///   connections or on those it was given (a client's kept-alive connection from before the heal
///   is healthy too; a connection already stalled stays stalled until its client gives up).
/// - Bounded: it accepts at most ``maximumConnections`` connections and stops by itself after
///   `lifetime`, closing every connection; ``stop()`` and deinit stop it earlier. The default
///   lifetime (15 minutes) is a safety net far beyond any test: a test on a loaded machine may
///   wait minutes for a thread of the cooperative pool, and a proxy that stopped under it was
///   seen to fail tests with "connection refused". Each connection runs on a thread of its own,
///   polling with short timeouts, never on Swift's cooperative pool.
public final class FaultyTCPProxy: Sendable {
    /// When a fault strikes.
    public enum Trigger: Sendable, Equatable, CustomStringConvertible {
        /// Once the client has sent this many bytes (later bytes are not forwarded).
        case clientBytes(Int)
        /// Once the server has sent this many bytes (later bytes are not forwarded).
        case serverBytes(Int)
        /// When the client's `n`-th flight arrives (1 is its first data; a flight is what the
        /// client sends after the server last sent something), before any of it is forwarded.
        /// For lock-step protocols such as HTTP/1.1: flight 2 is the second request of a
        /// connection (the one with credentials after a Digest challenge).
        case clientFlight(Int)
        /// When the server's `n`-th flight (what it sends after the client last sent something)
        /// arrives, before any of it is forwarded: the server got the request, the client never
        /// gets the answer.
        case serverFlight(Int)
        /// SSH: when the client's unencrypted packet of this message type arrives (20 KEXINIT,
        /// 30 KEX_ECDH_INIT, 21 NEWKEYS), before it is forwarded.
        case sshClientMessage(UInt8)
        /// When the server's answer to the first request of the connection that starts with
        /// `prefix` (for HTTP, a method and a space: `"MOVE "`) arrives, before any of it is
        /// forwarded: the server did what was asked, the client never hears of it. Unlike
        /// ``serverFlight(_:)`` it does not depend on which requests shared the connection.
        case answerTo(requestStartingWith: String)
        /// SSH: when the client's `n`-th encrypted flight arrives, before it is forwarded. With
        /// libssh2 and public-key login: 1 the `ssh-userauth` service request (still the
        /// handshake), 2 the `none` login that asks for the methods, 3 the public key offered,
        /// 4 the signed public-key login, 5 the channel for SFTP.
        case sshEncryptedFlight(Int)

        public var description: String {
            switch self {
            case .clientBytes(let count): "after \(count) client bytes"
            case .serverBytes(let count): "after \(count) server bytes"
            case .clientFlight(let number): "at client flight \(number)"
            case .serverFlight(let number): "at server flight \(number)"
            case .answerTo(let prefix): "at the answer to \(prefix.trimmingCharacters(in: .whitespaces))"
            case .sshClientMessage(let type): "at the client's SSH message \(type)"
            case .sshEncryptedFlight(let number): "at the client's encrypted SSH flight \(number)"
            }
        }
    }

    /// What the proxy does to a connection.
    public enum Fault: Sendable, Equatable, CustomStringConvertible {
        /// Forward everything.
        case none
        /// Close the connection right after accepting it, after sending `greeting` if any (sshd
        /// beyond its MaxStartups limit sends nothing, or "Exceeded MaxStartups").
        case closeAtAccept(greeting: String?)
        /// Accept the connection but never answer (no upstream connection is made).
        case stallAtAccept
        /// Close both sides when `trigger` fires; with `reset`, with a TCP reset (RST).
        case cut(Trigger, reset: Bool)
        /// Stop forwarding in both directions when `trigger` fires, keeping the connection open.
        case stall(Trigger)

        public var description: String {
            switch self {
            case .none: "none"
            case .closeAtAccept(let greeting): greeting.map { "close at accept after \($0.debugDescription)" } ?? "close at accept"
            case .stallAtAccept: "stall at accept"
            case .cut(let trigger, let reset): "\(reset ? "reset" : "cut") \(trigger)"
            case .stall(let trigger): "stall \(trigger)"
            }
        }
    }

    /// The most connections the proxy accepts in its life (256 unless the initializer is told
    /// otherwise); later ones are closed at once.
    public let maximumConnections: Int

    /// The loopback port the proxy listens on.
    public let port: Int
    /// The loopback port it forwards to.
    public let upstreamPort: Int

    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var fault = Fault.none
        var faultyConnectionsLeft = Int.max
        /// Counts ``inject(_:connections:strikes:)`` calls: a connection's fault strikes only while
        /// the generation it was accepted in is the current one.
        var generation = 0
        var strikesLeft = Int.max
        var accepted = 0
        var faultsFired = 0
        var upstreamLocalPorts: [Int] = []
        var stopped = false
        var open: Set<Int32> = []
    }

    /// Starts forwarding from a fresh loopback port to `upstreamPort` on 127.0.0.1.
    public init(forwardingTo upstreamPort: Int, lifetime: Duration = .seconds(15 * 60), maximumConnections: Int = 256) throws {
        self.upstreamPort = upstreamPort
        self.maximumConnections = maximumConnections
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw TestSupportError("the proxy cannot create a socket") }
        var reuse: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw TestSupportError("the proxy cannot listen on a loopback port")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let deadline = ContinuousClock.now + lifetime
        Thread { [self] in acceptLoop(until: deadline) }.start()
    }

    deinit {
        stop()
    }

    /// Applies `fault` to the connections accepted from now on; with `connections`, only to that
    /// many of them (the later ones are healthy); with `strikes`, it strikes that many times at
    /// most, whichever connections it strikes on.
    public func inject(_ fault: Fault, connections: Int = .max, strikes: Int = .max) {
        state.withLock {
            $0.fault = fault
            $0.faultyConnectionsLeft = connections
            $0.generation += 1
            $0.strikesLeft = strikes
        }
    }

    /// Forwards new connections faithfully again.
    public func heal() {
        inject(.none)
    }

    /// How many connections the proxy accepted.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// How many times a fault struck (at accept, or when its trigger fired).
    public var faultsFired: Int { state.withLock { $0.faultsFired } }

    /// The local ports of the proxy's connections to the server, in the order they were made: the
    /// ports the server's log names as its clients'.
    public var upstreamLocalPorts: [Int] { state.withLock { $0.upstreamLocalPorts } }

    /// Stops listening and closes every connection. Idempotent; also happens by itself when the
    /// lifetime is over.
    public func stop() {
        // Under the lock: a connection's thread closes its sockets under the same lock, so a
        // descriptor shut down here is still this proxy's (never a number the system gave to
        // another socket of the process since).
        state.withLock {
            guard !$0.stopped else { return }
            $0.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in $0.open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: - Accepting

    private func acceptLoop(until deadline: ContinuousClock.Instant) {
        defer { close(listener) }
        while !isStopped {
            guard ContinuousClock.now < deadline else {
                stop()
                return
            }
            var request = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
            guard client >= 0 else { continue }
            let accepted: (fault: Fault, generation: Int)? = state.withLock {
                guard !$0.stopped, $0.accepted < maximumConnections else { return nil }
                $0.accepted += 1
                var fault = Fault.none
                if $0.faultyConnectionsLeft > 0 {
                    fault = $0.fault
                    if fault != .none && $0.faultyConnectionsLeft != .max { $0.faultyConnectionsLeft -= 1 }
                }
                $0.open.insert(client)
                return (fault, $0.generation)
            }
            guard let accepted else {
                close(client)
                continue
            }
            Thread { [self] in
                serve(client, fault: accepted.fault, generation: accepted.generation)
                closeTracked(client)
            }.start()
        }
    }

    private func serve(_ client: Int32, fault: Fault, generation: Int) {
        switch fault {
        case .closeAtAccept(let greeting) where takeStrike(generation):
            if let greeting { Self.transmit(Array(greeting.utf8), to: client) }
            return
        case .stallAtAccept where takeStrike(generation):
            drainUntilClosed([client])
            return
        case .closeAtAccept, .stallAtAccept:
            guard let server = connectUpstream() else { return }
            state.withLock { _ = $0.open.insert(server) }
            defer { closeTracked(server) }
            forward(client: client, server: server, fault: .none, generation: generation)
            return
        default:
            break
        }
        guard let server = connectUpstream() else { return }
        state.withLock { _ = $0.open.insert(server) }
        defer { closeTracked(server) }
        forward(client: client, server: server, fault: fault, generation: generation)
    }

    /// Forgets and closes one of the connections' sockets (see ``stop()``).
    private func closeTracked(_ descriptor: Int32) {
        state.withLock {
            $0.open.remove(descriptor)
            close(descriptor)
        }
    }

    /// Takes one of the strikes left; `false` when the fault has struck as often as allowed, or
    /// was replaced (by another `inject` or a heal) since the connection of `generation` came.
    private func takeStrike(_ generation: Int) -> Bool {
        state.withLock {
            guard $0.generation == generation, $0.strikesLeft > 0 else { return false }
            if $0.strikesLeft != .max { $0.strikesLeft -= 1 }
            $0.faultsFired += 1
            return true
        }
    }

    private func connectUpstream() -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = Self.loopback(upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            return nil
        }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        if named { state.withLock { $0.upstreamLocalPorts.append(Int(UInt16(bigEndian: local.sin_port))) } }
        return descriptor
    }

    // MARK: - Forwarding

    /// Copies bytes both ways until one side closes or the fault strikes.
    private func forward(client: Int32, server: Int32, fault: Fault, generation: Int) {
        let trigger: Trigger?
        switch fault {
        case .cut(let value, _), .stall(let value): trigger = value
        default: trigger = nil
        }
        var watch = TriggerWatch(trigger: trigger)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !isStopped {
            var sockets = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            guard poll(&sockets, 2, 100) > 0 else { continue }
            for (index, entry) in sockets.enumerated() where entry.revents != 0 {
                let fromClient = index == 0
                let count = read(entry.fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                let chunk = Array(buffer[0..<count])
                let strikeAt = fromClient ? watch.clientSent(chunk) : watch.serverSent(chunk)
                let strikes = strikeAt != nil && takeStrike(generation)
                let forwardCount = strikes ? strikeAt ?? chunk.count : chunk.count
                if forwardCount > 0 {
                    Self.transmit(Array(chunk[0..<forwardCount]), to: fromClient ? server : client)
                }
                guard strikes else { continue }
                if case .cut(_, let reset) = fault {
                    if reset { Self.abort(client) }
                    return
                }
                drainUntilClosed([client, server])
                return
            }
        }
    }

    /// A stalled connection: reads and drops whatever arrives until the client closes its side
    /// (or the proxy stops), answering nothing.
    private func drainUntilClosed(_ sockets: [Int32]) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var open = sockets
        while !isStopped, let client = sockets.first, open.contains(client) {
            var requests = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&requests, nfds_t(requests.count), 100) > 0 else { continue }
            for request in requests where request.revents != 0 {
                if read(request.fd, &buffer, buffer.count) <= 0 { open.removeAll { $0 == request.fd } }
            }
        }
    }

    /// Writes all of `bytes`, giving up when the peer is gone (without SIGPIPE).
    private static func transmit(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Makes the coming close send a TCP reset instead of an orderly end.
    private static func abort(_ descriptor: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Follows one connection's traffic and tells where a trigger fires: the offset in a chunk
/// before which bytes are still forwarded.
private struct TriggerWatch {
    let trigger: FaultyTCPProxy.Trigger?
    private var clientBytes = 0
    private var serverBytes = 0
    private var clientFlights = 0
    private var serverSpokeSinceClient = true
    private var serverFlights = 0
    private var clientSpokeSinceServer = false
    /// The client's SSH stream, parsed only for the triggers that need it.
    private var ssh: SSHClientStream?
    private var sshFlights = 0
    private var serverSpokeSinceEncryptedClient = false
    /// Whether the request ``FaultyTCPProxy/Trigger/answerTo(requestStartingWith:)`` names was sent.
    private var awaitingAnswer = false
    private var fired = false

    init(trigger: FaultyTCPProxy.Trigger?) {
        self.trigger = trigger
        switch trigger {
        case .sshClientMessage?, .sshEncryptedFlight?: ssh = SSHClientStream()
        default: ssh = nil
        }
    }

    /// The offset in `chunk` (from the client) where the trigger fires, or `nil`.
    mutating func clientSent(_ chunk: [UInt8]) -> Int? {
        defer { clientBytes += chunk.count }
        let newFlight = serverSpokeSinceClient
        serverSpokeSinceClient = false
        clientSpokeSinceServer = true
        if newFlight { clientFlights += 1 }
        let events = ssh?.consume(chunk) ?? SSHClientStream.Events()
        guard !fired, let trigger else { return nil }
        var offset: Int?
        switch trigger {
        case .clientBytes(let limit):
            if clientBytes + chunk.count > limit { offset = max(0, limit - clientBytes) }
        case .serverBytes, .serverFlight:
            break
        case .answerTo(let prefix):
            if newFlight && chunk.starts(with: Array(prefix.utf8)) { awaitingAnswer = true }
        case .clientFlight(let number):
            if newFlight && clientFlights == number { offset = 0 }
        case .sshClientMessage(let type):
            offset = events.messages.first { $0.type == type }?.offset
        case .sshEncryptedFlight(let number):
            if let start = events.encryptedStart {
                if serverSpokeSinceEncryptedClient || start > 0 || sshFlights == 0 {
                    sshFlights += 1
                    if sshFlights == number { offset = start }
                }
                serverSpokeSinceEncryptedClient = false
            }
        }
        if offset != nil { fired = true }
        return offset
    }

    /// The offset in `chunk` (from the server) where the trigger fires, or `nil`.
    mutating func serverSent(_ chunk: [UInt8]) -> Int? {
        defer { serverBytes += chunk.count }
        serverSpokeSinceClient = true
        let newFlight = clientSpokeSinceServer || serverFlights == 0
        clientSpokeSinceServer = false
        if newFlight { serverFlights += 1 }
        if ssh?.isEncrypted == true { serverSpokeSinceEncryptedClient = true }
        guard !fired else { return nil }
        switch trigger {
        case .serverBytes(let limit) where serverBytes + chunk.count > limit:
            fired = true
            return max(0, limit - serverBytes)
        case .serverFlight(let number) where newFlight && serverFlights == number:
            fired = true
            return 0
        case .answerTo where newFlight && awaitingAnswer:
            fired = true
            return 0
        default:
            return nil
        }
    }
}

/// Parses what an SSH client sends while it is readable: its identification line, then binary
/// packets (uint32 length, padding length, payload starting with the message type) up to and
/// including its NEWKEYS; everything after that is encrypted.
///
/// Only a packet's first six bytes are looked at; the rest is skipped in bulk. (Appending every
/// byte and re-reading the length for each made a 6 MiB upload cost the proxy seconds of CPU in a
/// debug build, and far more under a sanitizer: on a loaded machine the proxy fell behind until
/// libcurl's low-speed limit ended the transfer, the "30-second timeout under load" of issue 27.)
private struct SSHClientStream {
    struct Events {
        /// The unencrypted messages that started in the chunk: type and offset in the chunk.
        var messages: [(type: UInt8, offset: Int)] = []
        /// Where encrypted bytes start in the chunk, if it has any.
        var encryptedStart: Int?
    }

    private enum Stage { case identification, packets, encrypted }
    private var stage = Stage.identification
    /// The first six bytes of the current packet (length, padding length, message type).
    private var header: [UInt8] = []
    /// Bytes of the current packet still to skip once its header is read.
    private var remaining = 0
    private var pendingStart = 0

    var isEncrypted: Bool { stage == .encrypted }

    mutating func consume(_ chunk: [UInt8]) -> Events {
        var events = Events()
        var index = 0
        while index < chunk.count {
            switch stage {
            case .encrypted:
                events.encryptedStart = index
                return events
            case .identification:
                if chunk[index] == UInt8(ascii: "\n") { stage = .packets }
                index += 1
            case .packets where remaining > 0:
                let skipped = min(remaining, chunk.count - index)
                index += skipped
                remaining -= skipped
                if remaining == 0 { endPacket() }
            case .packets:
                if header.isEmpty { pendingStart = index }
                header.append(chunk[index])
                index += 1
                guard header.count == 6 else { continue }
                var length = 0
                for byte in header[0..<4] { length = length << 8 | Int(byte) }
                events.messages.append((header[5], max(0, pendingStart)))
                remaining = max(0, 4 + length - 6)
                if remaining == 0 { endPacket() }
            }
        }
        // A packet that started in an earlier chunk reports offset 0 in later ones.
        pendingStart = 0
        return events
    }

    /// The current packet is over: after NEWKEYS (21) the client encrypts.
    private mutating func endPacket() {
        if header[5] == 21 { stage = .encrypted }
        header.removeAll(keepingCapacity: true)
    }
}
