import Foundation

/// Compression of change sets on their way to and from the remote, between the change-set file
/// and the codec (so an encrypted set is compressed first, then encrypted).
///
/// A compressed set (written by format 2) is a file of its own kind:
///
/// | bytes | content |
/// |---|---|
/// | 4 | ASCII `RSCZ` |
/// | 1 | method: `1` = zlib (RFC 1950; written by the system zlib at level 4, any level reads) |
/// | 8 | the size of the change set once expanded, unsigned little-endian |
/// | … | the compressed stream, to the end of the file |
///
/// A reader tells the two kinds apart by their first four bytes (`RSCS` is a change set as it is,
/// see ``ChangeSetFormat``), so sets of every format are read the same way. A set whose
/// compressed form would not be smaller is stored as it is: compression never makes a file larger.
package enum ChangeSetCompression {
    /// The four bytes a compressed change set starts with: ASCII `RSCZ`.
    package static let magic: [UInt8] = [0x52, 0x53, 0x43, 0x5A]
    /// The bytes before the compressed stream.
    static let headerLength = 13
    /// The free disk space an expansion leaves untouched: 64 MiB.
    static let diskReserve: UInt64 = 64 * 1024 * 1024

    /// How the stream is compressed.
    enum Method: UInt8 {
        case zlib = 1
    }

    /// Why a file that claims to be a compressed change set cannot be expanded.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Compresses the change set `source` into `destination`.
    /// - Returns: true if `destination` now holds a compressed set smaller than `source`; false
    ///   (and nothing at `destination`) if compressing would not save anything.
    package static func compress(_ source: URL, to destination: URL) throws -> Bool {
        let size = try FileManager.default.attributesOfItem(atPath: source.path)[.size] as? NSNumber
        let originalSize = size?.uint64Value ?? 0
        var header = Data(magic)
        header.append(Method.zlib.rawValue)
        withUnsafeBytes(of: originalSize.littleEndian) { header.append(contentsOf: $0) }
        try ZlibStream.compress(source, to: destination, header: header)
        let compressed = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber
        guard let compressedSize = compressed?.uint64Value, compressedSize < originalSize else {
            try? FileManager.default.removeItem(at: destination)
            return false
        }
        return true
    }

    /// Expands `file` in place if it is a compressed change set; leaves any other file as it is.
    ///
    /// The expansion never writes more than the size the header announces (a stream that expands
    /// further is refused as soon as it does), and starts only if the file system has room for it
    /// with ``diskReserve`` to spare, so a damaged or hostile set cannot fill the disk.
    /// - Throws: ``Failure`` for an unknown method, a damaged or truncated stream, or an expanded
    ///   size that differs from the header's; ``SyncError`` (``SyncError/Code/local``) when the disk
    ///   has no room for the expanded set (nothing is written then).
    package static func expandIfCompressed(_ file: URL) throws {
        let handle = try FileHandle(forReadingFrom: file)
        let header = try handle.read(upToCount: headerLength) ?? Data()
        try handle.close()
        guard header.starts(with: magic) else { return }
        guard header.count == headerLength else { throw Failure(description: "the compressed change set is truncated in its header") }
        guard Method(rawValue: header[header.startIndex + 4]) == .zlib else {
            throw Failure(description: "the change set is compressed with an unknown method (\(header[header.startIndex + 4]))")
        }
        let expectedSize = header.suffix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let directory = file.deletingLastPathComponent()
        let free = (try? FileManager.default.attributesOfFileSystem(forPath: directory.path)[.systemFreeSize] as? NSNumber)?.uint64Value
        if let free, free < diskReserve || expectedSize > free - diskReserve {
            throw SyncError(
                .local, "the change set would expand to \(expectedSize) bytes, more than the disk can take (\(free) bytes free, \(diskReserve) kept spare)"
            )
        }
        let expanded = directory.appendingPathComponent(".expanding-\(UUID().uuidString)")
        do {
            try ZlibStream.decompress(file, skipping: UInt64(headerLength), to: expanded, limit: expectedSize)
            let size = (try FileManager.default.attributesOfItem(atPath: expanded.path)[.size] as? NSNumber)?.uint64Value
            guard size == expectedSize else {
                throw Failure(description: "the change set expands to \(size ?? 0) bytes, not the \(expectedSize) its header says")
            }
            guard rename(expanded.path, file.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
        } catch let damaged as CompressionFailure {
            try? FileManager.default.removeItem(at: expanded)
            throw Failure(description: "the compressed change set cannot be expanded: \(damaged)")
        } catch {
            try? FileManager.default.removeItem(at: expanded)
            throw error
        }
    }
}
