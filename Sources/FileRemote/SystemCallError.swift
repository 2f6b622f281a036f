#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `errno` of a failed system call. FileRemote's low-level helpers throw it; the store turns it
/// into a ``RemoteStoreError`` with a ``FailureContext`` that knows the path and the side.
struct SystemCallError: Error, Sendable, Equatable {
    /// The `errno` value.
    let code: Int32

    /// The error for the `errno` left by the call that just failed.
    static var current: SystemCallError { SystemCallError(code: errno) }

    /// The system's description of the error ("No space left on device").
    var text: String { String(cString: strerror(code)) }

    /// Calls `call` until it is not interrupted by a signal; throws the `errno` of a failure
    /// (a negative result).
    static func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) throws(SystemCallError) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw .current }
        }
    }
}
