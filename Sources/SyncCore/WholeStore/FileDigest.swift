import CryptoPrimitives
import Foundation
import RemoteProtocol

/// Streams a local file through SHA-256 to describe it in a ``WholeStoreManifest``.
enum FileDigest {
    /// The size and SHA-256 digest of the file at `url`, read in 1 MiB chunks.
    static func describe(_ url: URL) throws -> WholeStoreManifest.File {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256Hasher()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(chunk)
            size += Int64(chunk.count)
        }
        return WholeStoreManifest.File(size: size, sha256: Hex.lowercase(hasher.finalize()))
    }
}
