import CLibSSH2
import Foundation
import RemoteProtocol

/// Tells why a libssh2 call of a connection's set-up (handshake, login, SFTP start) failed: because
/// the connection itself failed — dropped, reset, closed by the server, or silent for too long — or
/// because the server answered no.
///
/// The distinction decides whether a retry can help, and libssh2 1.10 blurs it: when the connection
/// drops or stalls while a public-key login waits for the server's answer, libssh2 returns
/// `LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED` ("Waiting for USERAUTH response") and overwrites the
/// socket error, exactly as if the server had refused the key. So the check looks past the return
/// code: at the session's last error, at a disconnect message the server sent, at the socket
/// itself (has the server closed or reset it?), and at how long the call waited.
struct SSHConnectionCheck {
    /// The set-up step a failed call belongs to, for messages.
    enum Phase: String {
        case handshake = "the SSH handshake"
        case authentication = "the login"
        case sftpStart = "the start of the SFTP subsystem"
    }

    /// What a failed call says about the connection.
    enum Verdict {
        /// The connection failed: a retry on a fresh connection may succeed (`unavailable` or
        /// `timedOut`), except when client and server share no algorithm (`invalidResponse`).
        case connectionFailed(RemoteStoreError)
        /// The server ended the connection on purpose, saying why, in a way that is a refusal
        /// (too many authentication failures, no more methods, an illegal user).
        case refusedAndClosed(String)
        /// The connection is up and the server answered: the return code is the server's answer.
        case answered
    }

    /// libssh2 codes that only ever mean a failure of the connection (the socket, the transport
    /// layer, the key exchange), never an answer of the server.
    private static let transportCodes: Set<Int32> = [
        LIBSSH2_ERROR_SOCKET_NONE, LIBSSH2_ERROR_BANNER_RECV, LIBSSH2_ERROR_BANNER_SEND, LIBSSH2_ERROR_INVALID_MAC,
        LIBSSH2_ERROR_SOCKET_SEND, LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE, LIBSSH2_ERROR_DECRYPT,
        LIBSSH2_ERROR_SOCKET_DISCONNECT, LIBSSH2_ERROR_SOCKET_RECV, LIBSSH2_ERROR_ENCRYPT, LIBSSH2_ERROR_BAD_SOCKET,
        LIBSSH2_ERROR_CHANNEL_CLOSED, LIBSSH2_ERROR_CHANNEL_EOF_SENT,
    ]

    /// libssh2 codes of a call that waited too long for the server.
    private static let timeoutCodes: Set<Int32> = [LIBSSH2_ERROR_TIMEOUT, LIBSSH2_ERROR_SOCKET_TIMEOUT]

    /// A call that waited this long gave up on the server: libssh2 1.10 stops waiting for a packet
    /// after 60 seconds (`LIBSSH2_READ_TIMEOUT`, counted in whole seconds) whatever the session's
    /// timeout, and then too reports a login as a refused key.
    private static let libssh2ReadTimeout: Duration = .seconds(59)

    let session: OpaquePointer
    let socket: TCPSocket
    let disconnect: UnsafeMutablePointer<clibssh2_disconnect_record>
    let configuration: SFTPRemoteStore.Configuration

    /// Judges a call of `phase` that returned `rc` after waiting `elapsed`.
    func verdict(rc: Int32, elapsed: Duration, during phase: Phase) -> Verdict {
        let failure = SSHSession.failure(of: session)
        let server = "the SSH server \(configuration.knownHostsName)"
        if disconnect.pointee.received != 0 {
            let reason = disconnect.pointee.reason
            let text = withUnsafeBytes(of: disconnect.pointee.message) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            let said = text.isEmpty ? "reason \(reason)" : "\"\(text)\""
            if phase == .authentication && Self.isRefusal(reason: reason, text: text) {
                return .refusedAndClosed("\(server) ended the login: \(said)")
            }
            return .connectionFailed(RemoteStoreError(
                .unavailable,
                message: "\(server) closed the connection during \(phase.rawValue) (\(said)); it may be restarting or "
                    + "overloaded", underlying: failure
            ))
        }
        if Self.timeoutCodes.contains(rc) || Self.timeoutCodes.contains(failure.code) {
            return .connectionFailed(RemoteStoreError(
                .timedOut,
                message: "\(server) did not answer within \(configuration.timeout) during \(phase.rawValue)", underlying: failure
            ))
        }
        switch socket.peerState() {
        case .closed:
            return .connectionFailed(RemoteStoreError(
                .unavailable,
                message: "\(server) closed the connection during \(phase.rawValue)\(greetingNote); it may be restarting or "
                    + (phase == .handshake
                        ? "overloaded (sshd drops connections beyond its MaxStartups limit), or not be an SSH server"
                        : "overloaded"),
                underlying: failure
            ))
        case .failed(let code):
            return .connectionFailed(RemoteStoreError(
                .unavailable,
                message: "the connection to \(server) failed during \(phase.rawValue): \(String(cString: strerror(code)))",
                underlying: failure
            ))
        case .connected:
            break
        }
        if rc == LIBSSH2_ERROR_KEX_FAILURE || failure.code == LIBSSH2_ERROR_KEX_FAILURE {
            // libssh2 reports a key exchange cut short and one that found no common algorithm
            // alike, and the server closes the connection after either, so they cannot be told
            // apart reliably: a transport failure (retried), whose message names both causes.
            return .connectionFailed(RemoteStoreError(
                .unavailable,
                message: "the key exchange with \(server) failed: the connection dropped, or the server and libssh2 "
                    + "\(String(cString: libssh2_version(0))) have no key exchange, host key, cipher or MAC algorithm in common",
                underlying: failure
            ))
        }
        if Self.transportCodes.contains(rc) || Self.transportCodes.contains(failure.code) {
            return .connectionFailed(RemoteStoreError(
                .unavailable,
                message: "the connection to \(server) failed during \(phase.rawValue)", underlying: failure
            ))
        }
        if elapsed >= Self.libssh2ReadTimeout {
            return .connectionFailed(RemoteStoreError(
                .timedOut,
                message: "\(server) did not answer within \(Self.libssh2ReadTimeout) during \(phase.rawValue)",
                underlying: failure
            ))
        }
        return .answered
    }

    /// What the server sent instead of an SSH greeting, if it did ("Exceeded MaxStartups" from an
    /// overloaded sshd, an HTTP error from a web server); libssh2 keeps the last line it read.
    private var greetingNote: String {
        guard let banner = libssh2_session_banner_get(session).map({ String(cString: $0) }), !banner.hasPrefix("SSH-") else {
            return ""
        }
        return " after sending \"\(banner.prefix(80))\" instead of an SSH greeting"
    }

    /// Whether a disconnect during the login is the server's refusal rather than a failure:
    /// RFC 4253's "no more authentication methods", "illegal user name" and "cancelled by user",
    /// and OpenSSH's "Too many authentication failures" (sent with reason "protocol error").
    private static func isRefusal(reason: Int32, text: String) -> Bool {
        switch reason {
        case SSH_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE, SSH_DISCONNECT_ILLEGAL_USER_NAME,
            SSH_DISCONNECT_AUTH_CANCELLED_BY_USER:
            return true
        default:
            return text.lowercased().contains("authentication fail")
        }
    }
}
