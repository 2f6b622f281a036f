import Foundation

/// Calls `body` with a pointer to the bytes of `bytes` and their count. The pointer is valid even
/// when there are no bytes (libcrypto refuses a null input pointer in some calls, whatever the
/// length).
func withBytes<Result>(
    _ bytes: some ContiguousBytes,
    _ body: (UnsafePointer<UInt8>, Int) throws -> Result
) rethrows -> Result {
    try bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            var empty: UInt8 = 0
            return try withUnsafePointer(to: &empty) { try body($0, 0) }
        }
        return try body(base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }
}

/// `count` bytes from the system's cryptographically secure generator (`getrandom` on Linux,
/// `arc4random_buf` on Darwin, through Swift's `SystemRandomNumberGenerator`).
package func secureRandomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
