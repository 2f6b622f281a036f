import Foundation
import RemoteProtocol
import RemoteTransportSupport

/// Which side of a transfer a failed system call concerns, so its `errno` becomes the right
/// ``RemoteStoreError``: a path in the store, or the caller's local file.
enum FailureContext: Sendable {
    /// A path inside the store: `errno` maps to a shared code (see ``RemoteStoreError/Code/init(errno:)``).
    case remote(RemotePath)
    /// The local file of an upload or download: every failure is ``RemoteStoreError/Code/localFile``.
    case local(URL)

    /// The error for `failure` while doing `action` ("create a temporary file"), keeping the
    /// `errno` as the underlying error.
    func error(_ failure: SystemCallError, _ action: String) -> RemoteStoreError {
        let underlying = POSIXErrorCode(rawValue: failure.code).map { POSIXError($0) }
        switch self {
        case .remote(let path):
            return RemoteStoreError(
                RemoteStoreError.Code(errno: failure.code),
                path: path,
                message: "cannot \(action) '\(path)': \(failure.text)",
                underlying: underlying
            )
        case .local(let url):
            return RemoteStoreError(
                .localFile,
                message: "cannot \(action) the local file '\(url.path(percentEncoded: false))': \(failure.text)",
                underlying: underlying
            )
        }
    }
}
