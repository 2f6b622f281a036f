import CLibSSH2
import RemoteProtocol

/// A failed libssh2 call, as the connection saw it: libssh2's error code, the SFTP status code when
/// the server answered one, and libssh2's message.
///
/// The connection turns it into a ``RemoteProtocol/RemoteStoreError`` once it knows what the call was
/// about (OpenSSH answers only "failure" or "no such file" in several cases, so the caller often
/// stats the path first to tell them apart).
struct SFTPFailure: Error, Sendable, CustomStringConvertible {
    /// The SFTP status codes of protocol version 3 (the only version OpenSSH speaks).
    enum Status: UInt, Sendable {
        case ok = 0, endOfFile, noSuchFile, permissionDenied, failure, badMessage, noConnection
        case connectionLost, operationUnsupported
    }

    /// The libssh2 return code (`LIBSSH2_ERROR_*`, negative).
    var code: Int32
    /// The SFTP status code, when `code` is `LIBSSH2_ERROR_SFTP_PROTOCOL`.
    var sftpStatus: UInt?
    /// libssh2's explanation.
    var message: String

    /// The status as a known value, `nil` for codes OpenSSH does not send.
    var status: Status? { sftpStatus.flatMap(Status.init(rawValue:)) }

    /// True if the SSH connection itself failed (socket error, timeout, closed channel): the
    /// session cannot be used again and must be replaced.
    var breaksConnection: Bool {
        if code == LIBSSH2_ERROR_SFTP_PROTOCOL {
            return status == .noConnection || status == .connectionLost
        }
        return true
    }

    /// The shared error code this failure means when nothing more specific is known: what the
    /// SFTP status says, else `timedOut` or `unavailable` (retryable: the connection failed).
    var defaultCode: RemoteStoreError.Code {
        switch code {
        case LIBSSH2_ERROR_SFTP_PROTOCOL:
            switch status {
            case .noSuchFile: return .notFound
            case .permissionDenied: return .permissionDenied
            case .badMessage: return .invalidResponse
            case .noConnection, .connectionLost: return .unavailable
            case .operationUnsupported: return .unsupported
            default: return .io
            }
        case LIBSSH2_ERROR_TIMEOUT, LIBSSH2_ERROR_SOCKET_TIMEOUT:
            return .timedOut
        default:
            // Every other libssh2 failure is one of the connection, including the authentication
            // codes: libssh2 1.10 returns them for a login whose connection dropped, too. Only
            // `SSHAuthenticator`, which checks the connection, reports a refused login.
            return .unavailable
        }
    }

    var description: String {
        if let sftpStatus {
            return "libssh2 error \(code), SFTP status \(sftpStatus): \(message)"
        }
        return "libssh2 error \(code): \(message)"
    }

    /// The failure as a ``RemoteStoreError`` with the default code for it.
    func remoteStoreError(_ what: String, path: RemotePath?) -> RemoteStoreError {
        remoteStoreError(defaultCode, what, path: path)
    }

    /// The failure as a ``RemoteStoreError`` with a code the caller worked out.
    func remoteStoreError(_ code: RemoteStoreError.Code, _ what: String, path: RemotePath?) -> RemoteStoreError {
        var text = what
        if breaksConnection {
            text += code == .timedOut ? " (the server did not answer in time)" : " (the SSH connection failed)"
        }
        return RemoteStoreError(code, path: path, message: text, underlying: self)
    }
}
