#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `errno` of a failed system call, as the low-level helpers of the backends throw it
/// (``FileDescriptorIO``, FileRemote's descriptors); each backend turns it into a
/// `RemoteStoreError` that names the path and the side (local or remote) it concerns.
public struct SystemCallError: Error, Sendable, Equatable {
    /// The `errno` value.
    public let code: Int32

    /// Wraps an `errno` value.
    public init(code: Int32) {
        self.code = code
    }

    /// The error for the `errno` left by the call that just failed.
    public static var current: SystemCallError { SystemCallError(code: errno) }

    /// The system's description of the error ("No space left on device").
    public var text: String { String(cString: strerror(code)) }

    /// Calls `call` until it is not interrupted by a signal (`EINTR`); throws the `errno` of a
    /// failure (a negative result).
    public static func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) throws(SystemCallError) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw .current }
        }
    }
}
