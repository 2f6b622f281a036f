import COpenSSL
import Foundation

/// SHA-256 (FIPS 180-4).
package enum SHA256 {
    /// The number of bytes of a digest.
    package static let byteCount = 32

    /// The digest of `bytes`.
    package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        oneShotDigest(bytes, EVP_sha256(), byteCount)
    }
}

/// MD5 (RFC 1321), for the integrity checksums protocols still ask for (S3's `Content-MD5`); never
/// for security.
package enum MD5 {
    /// The number of bytes of a digest.
    package static let byteCount = 16

    /// The digest of `bytes`.
    package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        oneShotDigest(bytes, EVP_md5(), byteCount)
    }
}

/// A SHA-256 digest computed over bytes given in pieces. It is used once: ``finalize()`` consumes it.
package struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    package init() {
        guard let context = EVP_MD_CTX_new() else {
            fatalError("libcrypto could not allocate a digest context")
        }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            fatalError("libcrypto could not start a SHA-256 digest: \(takeLibraryError())")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    package mutating func update(_ bytes: some ContiguousBytes) {
        withBytes(bytes) { pointer, count in
            precondition(EVP_DigestUpdate(context, pointer, count) == 1, "libcrypto's SHA-256 update failed: \(takeLibraryError())")
        }
    }

    /// The digest of every byte added.
    package consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        precondition(EVP_DigestFinal_ex(context, &digest, nil) == 1, "libcrypto's SHA-256 final step failed: \(takeLibraryError())")
        return digest
    }
}

/// HMAC-SHA-256 (RFC 2104, RFC 4231).
package enum HMACSHA256 {
    /// The authentication code of `message` under `key` (a key of at most 2 GiB).
    package static func authenticationCode(for message: some ContiguousBytes, key: some ContiguousBytes) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let result = withBytes(key) { keyPointer, keyCount in
            guard let keyLength = Int32(exactly: keyCount) else {
                preconditionFailure("an HMAC key of \(keyCount) bytes (2 GiB at most)")
            }
            return withBytes(message) { messagePointer, messageCount in
                HMAC(EVP_sha256(), keyPointer, keyLength, messagePointer, messageCount, &code, &length)
            }
        }
        precondition(result != nil && length == SHA256.byteCount, "libcrypto's HMAC-SHA-256 failed: \(takeLibraryError())")
        return code
    }
}

/// A one-shot digest of `bytes` with `algorithm`, which yields `byteCount` bytes. libcrypto fails
/// here only when it cannot allocate or the algorithm is unavailable (an OpenSSL configured to load
/// its FIPS provider alone has no MD5), which is a fault of the installation: it stops the process
/// with libcrypto's reason.
private func oneShotDigest(_ bytes: some ContiguousBytes, _ algorithm: OpaquePointer?, _ byteCount: Int) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: byteCount)
    var length: UInt32 = 0
    let result = withBytes(bytes) { pointer, count in
        EVP_Digest(pointer, count, &digest, &length, algorithm, nil)
    }
    precondition(result == 1 && length == byteCount, "libcrypto's digest failed: \(takeLibraryError())")
    return digest
}
