import CLibSSH2
import Foundation
import RemoteProtocol

/// Initialises libssh2 once per process (libssh2_init is not thread-safe; a global `let` is
/// initialised exactly once, on first use).
private let libssh2InitResult: Int32 = libssh2_init(0)

/// One authenticated SSH connection with its SFTP subsystem: socket, libssh2 session and SFTP
/// handle, in blocking mode with a timeout on every call.
///
/// Not thread-safe: it belongs to one ``SFTPConnection`` actor, which only uses it from its
/// dedicated thread. Deinitialisation closes everything in order.
final class SSHSession {
    /// The libssh2 session.
    let session: OpaquePointer
    /// The SFTP subsystem of `session`.
    let sftp: OpaquePointer
    /// The absolute server path of the store's root.
    private(set) var rootPath = "/"
    private let socket: TCPSocket
    /// Where libssh2 records the server's disconnect message; freed after the session.
    private let disconnectRecord: UnsafeMutablePointer<clibssh2_disconnect_record>

    /// Connects, verifies the host key, authenticates and opens SFTP.
    ///
    /// A failure of the connection itself in any phase (refused, dropped, reset, closed by the
    /// server, timed out) is `unavailable` or `timedOut`, which the store retries; only a
    /// definite answer of the server is `authenticationFailed` (see ``SSHConnectionCheck``).
    /// - Throws: ``RemoteProtocol/RemoteStoreError`` (`unavailable`, `timedOut`, `hostKeyUnknown`,
    ///   `hostKeyMismatch`, `authenticationFailed`…).
    init(configuration: SFTPRemoteStore.Configuration) throws {
        guard libssh2InitResult == 0 else {
            throw RemoteStoreError(.unknown, message: "libssh2 could not be initialised (libssh2_init returned \(libssh2InitResult))")
        }
        socket = try TCPSocket(host: configuration.host, port: configuration.port, timeout: configuration.timeout)
        guard let session = clibssh2_session_init() else {
            throw RemoteStoreError(.unknown, message: "libssh2 cannot allocate a session")
        }
        disconnectRecord = .allocate(capacity: 1)
        disconnectRecord.initialize(to: clibssh2_disconnect_record())
        clibssh2_record_disconnects(session, disconnectRecord)
        libssh2_session_set_blocking(session, 1)
        libssh2_session_set_timeout(session, Self.libssh2Timeout(for: configuration.timeout))
        let check = SSHConnectionCheck(session: session, socket: socket, disconnect: disconnectRecord, configuration: configuration)
        do {
            let started = ContinuousClock.now
            let rc = libssh2_session_handshake(session, socket.descriptor)
            guard rc == 0 else {
                if case .connectionFailed(let error) = check.verdict(rc: rc, elapsed: ContinuousClock.now - started, during: .handshake) {
                    throw error
                }
                throw Self.failure(of: session).remoteStoreError(
                    "the SSH handshake with \(configuration.knownHostsName) failed (is it an SSH server?)", path: nil
                )
            }
            try HostKeyVerifier(configuration: configuration).verify(session: session)
            try SSHAuthenticator(configuration: configuration, check: check).authenticate(session: session)
            let sftpStarted = ContinuousClock.now
            guard let sftp = libssh2_sftp_init(session) else {
                let rc = libssh2_session_last_errno(session)
                if case .connectionFailed(let error) = check.verdict(rc: rc, elapsed: ContinuousClock.now - sftpStarted, during: .sftpStart) {
                    throw error
                }
                throw Self.failure(of: session).remoteStoreError(
                    "\(configuration.knownHostsName) refused the SFTP subsystem", path: nil
                )
            }
            self.sftp = sftp
        } catch {
            libssh2_session_disconnect_ex(session, SSH_DISCONNECT_BY_APPLICATION, "connection refused by client", "")
            libssh2_session_free(session)
            disconnectRecord.deallocate()
            throw error
        }
        self.session = session
        libssh2_keepalive_config(session, 0, UInt32(clamping: configuration.keepaliveInterval.wholeMilliseconds / 1000))
        rootPath = try resolveRoot(configuration.root)
    }

    deinit {
        libssh2_sftp_shutdown(sftp)
        libssh2_session_disconnect_ex(session, SSH_DISCONNECT_BY_APPLICATION, "bye", "")
        libssh2_session_free(session)
        disconnectRecord.deallocate()
    }

    /// The timeout to give libssh2 for `timeout`: one second more. libssh2 1.10 measures the time
    /// a blocking call has waited in whole seconds (`time(NULL)`), so a call may give up up to a
    /// second early — a 1-second timeout could expire after a few milliseconds and turn a healthy
    /// connection into a `timedOut` one. With the extra second, a call waits at least `timeout`.
    static func libssh2Timeout(for timeout: Duration) -> Int {
        timeout.wholeMilliseconds + 1000
    }

    /// The last error of `session`, with the SFTP status when there is one.
    static func failure(of session: OpaquePointer, sftp: OpaquePointer? = nil) -> SFTPFailure {
        var message: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        let code = libssh2_session_last_error(session, &message, &length, 0)
        let text = message.map { String(cString: $0) } ?? "unknown error"
        let status = (code == LIBSSH2_ERROR_SFTP_PROTOCOL ? sftp.map { libssh2_sftp_last_error($0) } : nil)
        return SFTPFailure(code: code, sftpStatus: status, message: text)
    }

    /// The last error of this session.
    func lastFailure() -> SFTPFailure {
        Self.failure(of: session, sftp: sftp)
    }

    /// Sends a keepalive message: a cheap probe of a connection that has been idle.
    /// - Throws: ``SFTPFailure`` if the connection is gone.
    func sendKeepalive() throws(SFTPFailure) {
        var next: Int32 = 0
        guard libssh2_keepalive_send(session, &next) == 0 else { throw lastFailure() }
    }

    /// Turns the URL's root into an absolute path, resolving the login directory with realpath.
    private func resolveRoot(_ root: SFTPRemoteStore.Configuration.Root) throws -> String {
        switch root {
        case .absolute(let path):
            return path
        case .home(let relative):
            var buffer = [CChar](repeating: 0, count: 4096)
            let length = libssh2_sftp_symlink_ex(sftp, ".", 1, &buffer, UInt32(buffer.count), LIBSSH2_SFTP_REALPATH)
            guard length > 0 else {
                throw lastFailure().remoteStoreError("cannot resolve the login directory on the server", path: nil)
            }
            let home = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if relative.isEmpty { return home }
            return (home == "/" ? "" : home) + "/" + relative
        }
    }
}
