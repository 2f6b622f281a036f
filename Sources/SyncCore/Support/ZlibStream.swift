import CZlib
import Foundation

/// Streaming zlib (RFC 1950) compression of files with the system zlib, so a change set (or a
/// whole store of format 1 or 2, see ``WholeStoreCompression``) of any size is compressed or
/// expanded in bounded memory: compressed in blocks of 1 MiB, one per core at once
/// (``ParallelDeflate``), expanded 256 KiB at a time.
enum ZlibStream {
    private static let chunkSize = 256 * 1024

    /// Compresses `source` into a new file at `destination` (replaced if present) that starts
    /// with `header`, calling `progress` with the bytes of `source` compressed so far after each
    /// block.
    static func compress(_ source: URL, to destination: URL, header: Data = Data(), progress: (Int64) -> Void = { _ in }) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try FileHandle.creatingFile(at: destination, startingWith: header)
        defer { try? output.close() }
        try ParallelDeflate().compress(input, onto: output, progress: progress)
    }

    /// Expands the zlib stream that starts `offset` bytes into `source` into `destination`,
    /// refusing a truncated or damaged stream, any bytes after its end, and (with `limit`) a
    /// stream that expands to more than `limit` bytes, as soon as it does, so a damaged or hostile
    /// stream never writes more than that; calls `progress` with the bytes of `source` read so
    /// far after each chunk.
    static func decompress(
        _ source: URL, skipping offset: UInt64 = 0, to destination: URL, limit: UInt64? = nil, progress: (Int64) -> Void = { _ in }
    ) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        try input.seek(toOffset: offset)
        let output = try FileHandle.creatingFile(at: destination)
        defer { try? output.close() }
        var stream = z_stream()
        let initialized = czlib_inflate_init(&stream)
        guard initialized == Z_OK else { throw CompressionFailure(description: "zlib could not start (\(initialized))") }
        defer { inflateEnd(&stream) }

        var outputBuffer = [UInt8](repeating: 0, count: chunkSize)
        var finished = false
        var bytesRead: Int64 = 0
        var bytesWritten: UInt64 = 0
        while !finished {
            let chunk = try input.read(upToCount: chunkSize) ?? Data()
            bytesRead += Int64(chunk.count)
            if chunk.isEmpty {
                throw CompressionFailure(description: "the compressed stream is truncated")
            }
            var inputBytes = [UInt8](chunk)
            try inputBytes.withUnsafeMutableBufferPointer { inputPointer in
                stream.next_in = inputPointer.baseAddress
                stream.avail_in = uInt(inputPointer.count)
                repeat {
                    let status: Int32 = try outputBuffer.withUnsafeMutableBufferPointer { outputPointer in
                        stream.next_out = outputPointer.baseAddress
                        stream.avail_out = uInt(outputPointer.count)
                        let status = inflate(&stream, Z_NO_FLUSH)
                        let produced = outputPointer.count - Int(stream.avail_out)
                        if produced > 0 {
                            bytesWritten += UInt64(produced)
                            if let limit, bytesWritten > limit {
                                throw CompressionFailure(description: "the stream expands beyond \(limit) bytes")
                            }
                            try output.write(contentsOf: UnsafeBufferPointer(rebasing: outputPointer[..<produced]))
                        }
                        return status
                    }
                    switch status {
                    case Z_STREAM_END:
                        finished = true
                        if stream.avail_in > 0 {
                            throw CompressionFailure(description: "bytes follow the end of the compressed stream")
                        }
                    case Z_OK, Z_BUF_ERROR:
                        break
                    default:
                        throw CompressionFailure(description: "the compressed stream is damaged (zlib \(status))")
                    }
                } while stream.avail_out == 0 && !finished
            }
            progress(bytesRead)
        }
        if let rest = try input.read(upToCount: 1), !rest.isEmpty {
            throw CompressionFailure(description: "bytes follow the end of the compressed stream")
        }
    }
}
