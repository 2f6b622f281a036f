import COpenSSL

/// Why a cryptographic operation did not produce a result.
package enum CryptoFailure: Error, Equatable, CustomStringConvertible {
    /// An AES-GCM tag did not match: wrong key, nonce or associated data, or altered bytes.
    case authenticationFailed
    /// An argument outside what the primitive accepts (a key or nonce of the wrong size).
    case invalidArgument(String)
    /// libcrypto's `call` failed for `reason` (for example scrypt parameters it refuses or memory
    /// it cannot allocate).
    case libraryFailure(call: String, reason: String)

    package var description: String {
        switch self {
        case .authenticationFailed: "authentication failed"
        case .invalidArgument(let what): "invalid argument: \(what)"
        case .libraryFailure(let call, let reason): "libcrypto's \(call) failed: \(reason)"
        }
    }
}

/// Throws ``CryptoFailure/libraryFailure(call:reason:)`` naming `call` unless `succeeded`.
func check(_ succeeded: Bool, _ call: String) throws {
    guard succeeded else { throw CryptoFailure.libraryFailure(call: call, reason: takeLibraryError()) }
}

/// libcrypto's reason for the last failure on this thread, emptying the thread's error queue so
/// that a later failure reports its own.
func takeLibraryError() -> String {
    let code = ERR_peek_last_error()
    ERR_clear_error()
    guard code != 0 else { return "no reason given" }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}
