import CryptoPrimitives
import Foundation
import RemoteProtocol

/// The byte layout of an encrypted remote file (format version 1), documented byte by byte in
/// Docs/RemoteFormat.md, section "Encryption".
///
/// ```
/// header  magic "RSEF" ‖ version 0x01 ‖ log2(chunk size) ‖ data key id (16) ‖ file salt (32)
/// chunks  AES-256-GCM(chunk i) ‖ tag (16), for i = 0, 1, …; every chunk but the last holds exactly
///         `chunk size` plaintext bytes, the last holds 0 to `chunk size` bytes
/// ```
/// Each file gets its own key, `HKDF-SHA256(data key, salt: file salt, info: "RollingSync file key v1")`,
/// so the 96-bit nonces can be counters: chunk `i` uses `i` as 8 big-endian bytes, three zero bytes,
/// and `0x01` for the final chunk or `0x00` otherwise. The associated data of every chunk is the
/// whole header followed by the file's remote path in UTF-8. So a flipped bit, a file moved to
/// another path, chunks reordered, dropped or appended, or a file cut at a chunk boundary all fail
/// authentication.
enum EncryptedFileFormat {
    /// The four bytes every encrypted file starts with: `RSEF`.
    static let magic: [UInt8] = Array("RSEF".utf8)
    /// The format version this build writes and reads.
    static let version: UInt8 = 1
    /// The base-2 logarithm of the chunk size this build writes (64 KiB).
    static let writtenLog2ChunkSize: UInt8 = 16
    /// The chunk sizes accepted when reading (4 KiB to 16 MiB), which bounds memory use.
    static let acceptedLog2ChunkSize: ClosedRange<UInt8> = 12...24
    /// The number of bytes of the per-file salt.
    static let saltByteCount = 32
    /// The number of bytes of an AES-GCM tag.
    static let tagByteCount = 16
    /// The number of bytes of the header.
    static let headerByteCount = magic.count + 2 + DataKeyID.byteCount + saltByteCount

    /// The HKDF `info` of per-file keys.
    private static let fileKeyInfo = Array("RollingSync file key v1".utf8)

    /// The parsed header of a file.
    struct Header {
        var log2ChunkSize: UInt8
        var keyID: DataKeyID
        var salt: [UInt8]

        /// The plaintext bytes of a full chunk.
        var chunkSize: Int { 1 << Int(log2ChunkSize) }

        /// The header's bytes.
        var bytes: [UInt8] {
            magic + [version, log2ChunkSize] + keyID.bytes + salt
        }

        /// Parses the first ``headerByteCount`` bytes of a file.
        init(parsing bytes: some Collection<UInt8>) throws(EncryptedFileError) {
            let bytes = Array(bytes)
            guard bytes.count == headerByteCount else {
                throw EncryptedFileError(.truncated)
            }
            guard Array(bytes[0..<4]) == magic else {
                throw EncryptedFileError(.notEncrypted)
            }
            guard bytes[4] == version else {
                throw EncryptedFileError(.unsupportedVersion(Int(bytes[4])))
            }
            guard acceptedLog2ChunkSize.contains(bytes[5]) else {
                throw EncryptedFileError(.malformedHeader)
            }
            log2ChunkSize = bytes[5]
            let keyEnd = 6 + DataKeyID.byteCount
            guard let keyID = DataKeyID(bytes: bytes[6..<keyEnd]) else {
                throw EncryptedFileError(.malformedHeader)
            }
            self.keyID = keyID
            salt = Array(bytes[keyEnd...])
        }

        /// A fresh header for a file encrypted with the key `keyID`.
        init(keyID: DataKeyID) {
            log2ChunkSize = writtenLog2ChunkSize
            self.keyID = keyID
            var generator = SystemRandomNumberGenerator()
            salt = (0..<saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
    }

    /// The key of the one file whose header is `header`.
    static func fileKey(for header: Header, dataKey: DataKey) -> [UInt8] {
        HKDFSHA256.deriveKey(
            inputKeyMaterial: dataKey.bytes,
            salt: header.salt,
            info: fileKeyInfo,
            outputByteCount: DataKey.byteCount
        )
    }

    /// The associated data of every chunk of a file: its header, then its remote path.
    static func associatedData(header: Header, path: RemotePath) -> [UInt8] {
        header.bytes + Array(path.string.utf8)
    }

    /// The nonce of chunk `index`, final or not.
    static func nonce(chunk index: UInt64, isFinal: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for position in 0..<8 {
            bytes[position] = UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64(position)))
        }
        bytes[11] = isFinal ? 1 : 0
        return bytes
    }
}
