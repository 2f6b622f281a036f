import Foundation

/// How a whole-store unit's snapshot is compressed: the manifest's `compression`, which also
/// names the snapshot's file in the unit.
package enum WholeStoreCompression: String, CaseIterable, Sendable {
    /// zlib (RFC 1950), in `store.sqlite.zlib`: written by whole-store formats 1 and 2, read by
    /// this build for the units older builds left.
    case zlib
    /// Zstandard (RFC 8878), in `store.sqlite.zst`: written since format 3. Against format 2's
    /// deflate it compresses the 1M-row benchmark's snapshot about 5 times faster and expands it
    /// about 9 times faster, into 7 % fewer bytes (see ``ZstdStream/level``).
    case zstd

    /// The compression this build writes.
    package static let written = WholeStoreCompression.zstd

    /// The snapshot's file name inside a unit.
    package var storeFileName: String {
        switch self {
        case .zlib: "store.sqlite.zlib"
        case .zstd: "store.sqlite.zst"
        }
    }

    /// Compresses `source` into a new file at `destination`, calling `progress` with the bytes of
    /// `source` compressed so far.
    /// - Throws: ``CompressionFailure``, or the file handles' errors.
    func compress(_ source: URL, to destination: URL, progress: (Int64) -> Void) throws {
        switch self {
        case .zlib: try ZlibStream.compress(source, to: destination, progress: progress)
        case .zstd: try ZstdStream.compress(source, to: destination, progress: progress)
        }
    }

    /// Expands `source` into `destination`, writing never more than `limit` bytes, calling
    /// `progress` with the bytes of `source` read so far.
    /// - Throws: ``CompressionFailure`` for a damaged, truncated or over-long stream.
    func decompress(_ source: URL, to destination: URL, limit: UInt64, progress: (Int64) -> Void) throws {
        switch self {
        case .zlib: try ZlibStream.decompress(source, to: destination, limit: limit, progress: progress)
        case .zstd: try ZstdStream.decompress(source, to: destination, limit: limit, progress: progress)
        }
    }
}
