import COpenSSL
import Foundation

/// HKDF with HMAC-SHA-256 (RFC 5869), extract then expand.
package enum HKDFSHA256 {
    /// `outputByteCount` bytes (at most 255 × 32) of key derived from `inputKeyMaterial`, `salt` and
    /// `info`. An empty salt stands for 32 zero bytes, as the RFC says.
    package static func deriveKey(
        inputKeyMaterial: some ContiguousBytes,
        salt: some ContiguousBytes,
        info: some ContiguousBytes,
        outputByteCount: Int
    ) -> [UInt8] {
        precondition(outputByteCount > 0 && outputByteCount <= 255 * SHA256.byteCount, "HKDF-SHA-256 derives 1 to 8,160 bytes")
        var saltBytes = salt.withUnsafeBytes { Array($0) }
        if saltBytes.isEmpty {
            saltBytes = [UInt8](repeating: 0, count: SHA256.byteCount)
        }
        let pseudorandomKey = HMACSHA256.authenticationCode(for: inputKeyMaterial, key: saltBytes)
        let infoBytes = info.withUnsafeBytes { Array($0) }
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            block = HMACSHA256.authenticationCode(for: block + infoBytes + [counter], key: pseudorandomKey)
            output += block
            counter &+= 1
        }
        return Array(output.prefix(outputByteCount))
    }
}

/// scrypt (RFC 7914), the memory-hard password-based key derivation.
package enum Scrypt {
    /// `outputByteCount` bytes of key derived from `password` and `salt` at the cost `N` = 2^`log2N`,
    /// `r`, `p`. Runs on the calling thread for as long as the cost says (about a second at
    /// 2^17, 8, 1, with 128 MiB of memory): call it off Swift's cooperative pool.
    /// - Throws: ``CryptoFailure/libraryFailure(call:reason:)`` if libcrypto refuses the parameters or cannot
    ///   allocate the memory they need.
    package static func deriveKey(
        password: some ContiguousBytes,
        salt: some ContiguousBytes,
        log2N: Int,
        r: Int,
        p: Int,
        outputByteCount: Int
    ) throws -> [UInt8] {
        guard (1..<63).contains(log2N), r > 0, p > 0, outputByteCount > 0 else {
            throw CryptoFailure.invalidArgument("scrypt(N=2^\(log2N), r=\(r), p=\(p)) for \(outputByteCount) bytes")
        }
        let n = UInt64(1) << UInt64(log2N)
        // What libcrypto allocates: 128·r·p bytes of B and 128·r·(N + 2) of V, which it checks
        // against this limit (its default, 32 MiB, is below the recommended cost's 128 MiB).
        let (blockBytes, blockOverflow) = UInt64(128).multipliedReportingOverflow(by: UInt64(r))
        let (memory, overflow) = blockBytes.multipliedReportingOverflow(by: n + 2 + UInt64(p))
        guard !blockOverflow, !overflow else {
            throw CryptoFailure.invalidArgument("scrypt(N=2^\(log2N), r=\(r), p=\(p)) needs more memory than can be addressed")
        }
        var key = [UInt8](repeating: 0, count: outputByteCount)
        let result = withBytes(password) { passwordPointer, passwordCount in
            withBytes(salt) { saltPointer, saltCount in
                passwordPointer.withMemoryRebound(to: CChar.self, capacity: max(passwordCount, 1)) { passwordCharacters in
                    EVP_PBE_scrypt(passwordCharacters, passwordCount, saltPointer, saltCount, n, UInt64(r), UInt64(p), memory, &key, outputByteCount)
                }
            }
        }
        try check(result == 1, "EVP_PBE_scrypt")
        return key
    }
}
