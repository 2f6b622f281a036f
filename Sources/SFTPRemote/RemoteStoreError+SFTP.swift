import CLibSSH2
import RemoteProtocol

/// How the SFTP store's libssh2 and SFTP-status failures become ``RemoteProtocol/RemoteStoreError``s.
///
/// Failures of the SSH connection itself (a dropped socket, a timeout, a closed channel) are
/// `unavailable` or `timedOut`, which are retryable; the SFTP status codes map to the shared codes
/// (`noSuchFile` → `notFound`, `permissionDenied` → `permissionDenied`, …). The libssh2 failure is
/// kept as the error's ``RemoteProtocol/RemoteStoreError/underlying`` cause.
extension SFTPFailure {
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
