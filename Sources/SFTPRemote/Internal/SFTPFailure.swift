import CLibSSH2
import RemoteProtocol

/// A failed libssh2 call, as the connection saw it: libssh2's error code, the SFTP status code when
/// the server answered one, and libssh2's message.
///
/// The connection turns it into a ``RemoteProtocol/RemoteStoreError`` (`RemoteStoreError+SFTP.swift`)
/// once it knows what the call was about (OpenSSH answers only "failure" or "no such file" in
/// several cases, so the caller often stats the path first to tell them apart).
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

    var description: String {
        if let sftpStatus {
            return "libssh2 error \(code), SFTP status \(sftpStatus): \(message)"
        }
        return "libssh2 error \(code): \(message)"
    }
}
