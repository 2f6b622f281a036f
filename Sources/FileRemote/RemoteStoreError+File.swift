#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RemoteProtocol

extension RemoteStoreError.Code {
    /// The shared code for a file-system `errno`: `ENOENT` is ``notFound``, `EEXIST`
    /// ``alreadyExists``, `ENOTDIR` ``notADirectory``, `EISDIR` ``isADirectory``,
    /// `EACCES`, `EPERM` and `EROFS` ``permissionDenied``, `ENOSPC` and `EDQUOT`
    /// ``insufficientStorage``; anything else is ``io``.
    init(errno code: Int32) {
        switch code {
        case ENOENT: self = .notFound
        case EEXIST: self = .alreadyExists
        case ENOTDIR: self = .notADirectory
        case EISDIR: self = .isADirectory
        case EACCES, EPERM, EROFS: self = .permissionDenied
        case ENOSPC, EDQUOT: self = .insufficientStorage
        default: self = .io
        }
    }
}
