import Foundation
import RemoteProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected TCP socket for one SSH session, opened with a bounded wait.
///
/// Not thread-safe: it belongs to one ``SFTPConnection``, which uses it from its dedicated thread.
final class TCPSocket {
    /// The file descriptor libssh2 reads and writes.
    let descriptor: Int32

    /// Resolves `host` and connects to the first address that answers within `timeout`.
    ///
    /// TCP keepalive and `TCP_NODELAY` are switched on (SFTP requests are small and latency-bound).
    /// - Throws: ``RemoteProtocol/RemoteStoreError/Code/unavailable`` if the name does not resolve
    ///   or nothing accepts the connection, ``RemoteProtocol/RemoteStoreError/Code/timedOut`` if
    ///   the connection is not accepted in time.
    init(host: String, port: Int, timeout: Duration) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw RemoteStoreError(.unavailable, message: "cannot resolve the SFTP host '\(host)': \(reason)")
        }
        defer { freeaddrinfo(list) }

        var lastError = RemoteStoreError(.unavailable, message: "no address found for \(host)")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            do {
                descriptor = try Self.openConnection(address.pointee, host: host, port: port, timeout: timeout)
                return
            } catch let error as RemoteStoreError {
                lastError = error
            }
            entry = address.pointee.ai_next
        }
        throw lastError
    }

    deinit {
        close(descriptor)
    }

    /// What the socket says about the connection, without waiting or consuming anything.
    enum PeerState: Equatable {
        /// Still connected: nothing to read yet, or data waiting.
        case connected
        /// The server closed its side (end of file).
        case closed
        /// The connection failed (reset by the server, unreachable…), with `errno`.
        case failed(Int32)
    }

    /// Peeks at the socket (never blocks, reads nothing): whether the server has closed or reset
    /// the connection. libssh2 1.10 reports a connection the server dropped while it waited for an
    /// answer as a refused key; this tells the two apart.
    func peerState() -> PeerState {
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if count > 0 { return .connected }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .connected
            default: return .failed(errno)
            }
        }
    }

    private static func openConnection(_ address: addrinfo, host: String, port: Int, timeout: Duration) throws -> Int32 {
        // Close-on-exec: a process the application starts must not keep the connection open.
        let fd = socket(address.ai_family, address.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard fd >= 0 else {
            throw RemoteStoreError(.unavailable, message: "cannot create a socket: \(String(cString: strerror(errno)))")
        }
        do {
            let flags = fcntl(fd, F_GETFL, 0)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            if connect(fd, address.ai_addr, address.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { throw refused(host, port, errno) }
                try waitUntilConnected(fd, host: host, port: port, timeout: timeout)
            }
            _ = fcntl(fd, F_SETFL, flags)
            var on: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, size)
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    private static func waitUntilConnected(_ fd: Int32, host: String, port: Int, timeout: Duration) throws {
        var request = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat {
            ready = poll(&request, 1, Int32(clamping: timeout.wholeMilliseconds))
        } while ready < 0 && errno == EINTR
        if ready == 0 {
            throw RemoteStoreError(.timedOut, message: "connecting to \(host):\(port) timed out after \(timeout)")
        }
        var socketError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
        if ready < 0 || socketError != 0 {
            throw refused(host, port, ready < 0 ? errno : socketError)
        }
    }

    private static func refused(_ host: String, _ port: Int, _ code: Int32) -> RemoteStoreError {
        RemoteStoreError(
            .unavailable,
            message: "cannot connect to the SFTP server \(host):\(port): \(String(cString: strerror(code)))",
            underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) }
        )
    }
}
