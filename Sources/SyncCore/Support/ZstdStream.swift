import CZstd
import Foundation

/// Streaming Zstandard (RFC 8878) compression of files with the system libzstd, so a whole store
/// of any size is compressed or expanded in bounded memory (whole-store format 3 on, see
/// ``WholeStoreCompression``).
///
/// A file becomes one zstd frame with a content checksum, so a damaged stream is refused by its
/// reader even before the manifest's digests are compared. Compression runs on libzstd's own
/// worker threads, one per core (at most 4), never on Swift's cooperative pool; the calling
/// thread only reads and writes. A libzstd built without threads compresses on the calling
/// thread, to the same format.
enum ZstdStream {
    /// Zstandard's level: 1, its fastest standard level. On the 1M-row benchmark's 223 MB
    /// snapshot it wrote 82.1 MB in 0.8 CPU seconds, where level 3 wrote 87.1 MB in 1.3, and the
    /// deflate at level 4 that format 2 used wrote 88.8 MB in 4.5 (one core each, with the
    /// `zstd` and `gzip` tools). Readers do not depend on it.
    static let level: Int32 = 1
    /// How much of the input is handed to libzstd at a time.
    private static let chunkSize = 1 << 20
    /// How much of the input each worker compresses at a time: 1 MiB rather than libzstd's 2 MiB
    /// at level 1, which held 7 MB more in buffers with two workers (the `zstd` tool's peak: 11.7
    /// MB instead of 18.6 on the benchmark's snapshot; one thread: 4.5 MB) for no fewer bytes, and
    /// kept push-store's peak under bootstrap's 64 MB target.
    private static let jobSize = 1 << 20

    /// How many worker threads compress at once: one per core, at most 4.
    static var defaultWorkers: Int { max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4)) }

    /// Compresses `source` into a new file at `destination` (replaced if present), calling
    /// `progress` with the bytes of `source` handed to the compressor so far after each chunk.
    /// - Throws: ``CompressionFailure`` if libzstd fails, or the file handles' errors.
    static func compress(_ source: URL, to destination: URL, workers: Int = defaultWorkers, progress: (Int64) -> Void = { _ in }) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try FileHandle.creatingFile(at: destination)
        defer { try? output.close() }
        guard let context = ZSTD_createCCtx() else { throw CompressionFailure(description: "zstd could not start") }
        defer { ZSTD_freeCCtx(context) }
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level))
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1))
        // A libzstd built without threads refuses these, and compresses on this thread instead.
        if ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_nbWorkers, Int32(max(0, workers)))) == 0, workers > 0 {
            try check(ZSTD_CCtx_setParameter(context, ZSTD_c_jobSize, Int32(jobSize)))
        }

        var outputBuffer = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
        var consumed: Int64 = 0
        var finished = false
        while !finished {
            let chunk = try input.read(upToCount: chunkSize) ?? Data()
            finished = chunk.isEmpty
            let directive = finished ? ZSTD_e_end : ZSTD_e_continue
            try chunk.withUnsafeBytes { chunkBytes in
                var pending = ZSTD_inBuffer(src: chunkBytes.baseAddress, size: chunkBytes.count, pos: 0)
                var remaining = 0
                repeat {
                    remaining = try outputBuffer.withUnsafeMutableBytes { outputBytes in
                        var out = ZSTD_outBuffer(dst: outputBytes.baseAddress, size: outputBytes.count, pos: 0)
                        let remaining = try check(ZSTD_compressStream2(context, &out, &pending, directive))
                        if out.pos > 0 { try output.write(contentsOf: UnsafeRawBufferPointer(rebasing: outputBytes[..<out.pos])) }
                        return remaining
                    }
                    // `.continue` is done once the chunk is taken; `.end` once everything is flushed.
                } while finished ? remaining > 0 : pending.pos < pending.size
            }
            consumed += Int64(chunk.count)
            if !finished { progress(consumed) }
        }
    }

    /// The first bytes of every Zstandard frame (`ZSTD_MAGICNUMBER`, little-endian). Skippable
    /// frames start otherwise, and are refused: the writer never makes one.
    private static let frameMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// Expands the zstd frame in `source` into `destination`, refusing anything but one frame:
    /// another format, a truncated or damaged frame (its checksum included), any bytes after its
    /// end, and (with `limit`) a frame that expands to more than `limit` bytes, as soon as it does,
    /// so a damaged or hostile file never writes more than that; a frame that asks for a window
    /// above libzstd's default cap (128 MiB) is refused rather than allocated. Calls `progress`
    /// with the bytes of `source` read so far after each chunk.
    static func decompress(_ source: URL, to destination: URL, limit: UInt64? = nil, progress: (Int64) -> Void = { _ in }) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try FileHandle.creatingFile(at: destination)
        defer { try? output.close() }
        guard let context = ZSTD_createDCtx() else { throw CompressionFailure(description: "zstd could not start") }
        defer { ZSTD_freeDCtx(context) }

        var outputBuffer = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        var bytesWritten: UInt64 = 0
        var frameEnded = false
        let trailingBytes = CompressionFailure(description: "bytes follow the end of the compressed stream")
        /// Hands `pending` to the decoder until it is all taken and the decoder has no output left
        /// to give (it may hold some back while the output buffer is full), writing what it gives.
        func decode(_ pending: inout ZSTD_inBuffer) throws {
            while !frameEnded {
                let outputFull = try outputBuffer.withUnsafeMutableBytes { outputBytes in
                    var out = ZSTD_outBuffer(dst: outputBytes.baseAddress, size: outputBytes.count, pos: 0)
                    let status = ZSTD_decompressStream(context, &out, &pending)
                    guard ZSTD_isError(status) == 0 else {
                        throw CompressionFailure(description: "the compressed stream is damaged (zstd: \(String(cString: ZSTD_getErrorName(status))))")
                    }
                    bytesWritten += UInt64(out.pos)
                    if let limit, bytesWritten > limit {
                        throw CompressionFailure(description: "the stream expands beyond \(limit) bytes")
                    }
                    if out.pos > 0 { try output.write(contentsOf: UnsafeRawBufferPointer(rebasing: outputBytes[..<out.pos])) }
                    frameEnded = status == 0
                    return out.pos == out.size
                }
                if pending.pos == pending.size, !outputFull { break }
            }
            guard pending.pos == pending.size else { throw trailingBytes }
        }

        var bytesRead: Int64 = 0
        while let chunk = try input.read(upToCount: chunkSize), !chunk.isEmpty {
            guard bytesRead > 0 || chunk.starts(with: frameMagic) else {
                throw CompressionFailure(description: "the file is not a zstd stream")
            }
            guard !frameEnded else { throw trailingBytes }
            bytesRead += Int64(chunk.count)
            try chunk.withUnsafeBytes { chunkBytes in
                var pending = ZSTD_inBuffer(src: chunkBytes.baseAddress, size: chunkBytes.count, pos: 0)
                try decode(&pending)
            }
            progress(bytesRead)
        }
        if !frameEnded {
            // Whatever the decoder still holds of a complete frame.
            var nothing = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
            try decode(&nothing)
        }
        guard frameEnded else { throw CompressionFailure(description: "the compressed stream is truncated") }
    }

    /// `result`, or a ``CompressionFailure`` naming libzstd's error when it is one.
    @discardableResult
    private static func check(_ result: Int) throws -> Int {
        guard ZSTD_isError(result) == 0 else {
            throw CompressionFailure(description: "zstd failed: \(String(cString: ZSTD_getErrorName(result)))")
        }
        return result
    }
}
