import CZlib
import Foundation

/// Writes one ordinary zlib (RFC 1950) stream, compressing several blocks of its input at once,
/// one per core, as pigz does.
///
/// The input is cut into blocks of ``blockSize``. Each block is deflated on its own, with the
/// 32 KiB before it as its preset dictionary (so it still refers back across the cut), and ends
/// with a sync flush (an empty stored block) so the next block starts on a byte boundary; the
/// last block, shorter than the others (empty when the input fills its blocks exactly), ends the
/// stream instead. Joined between a zlib header and the Adler-32 of the whole input, the blocks
/// are a stream that any inflater reads, without knowing how it was made. It is about a
/// hundredth of a percent larger than one deflate pass at the same level would make it (0.009 %
/// on a 211 MB database); an input shorter than a block is exactly zlib's one-pass stream.
///
/// The blocks of a round (one per core) are compressed at the same time, the first on the calling
/// thread and each other one on a thread of its own, never on Swift's cooperative pool; a round is
/// written before the next is read, so memory stays at about two blocks per core.
struct ParallelDeflate {
    /// The size of a block: large enough that a thread and a flush per block cost nothing that
    /// shows.
    static let blockSize = 1 << 20
    /// Deflate's window: the most a block can refer back.
    private static let windowSize = 32 * 1024
    /// Deflate's level: 4 rather than zlib's default 6. On the 211 MB snapshot of the 1M-row
    /// benchmark (Scripts/benchmark.sh SyncBenchmark --cli) it took 4.0 CPU seconds instead of 6.7
    /// for 1.2 % more bytes; levels 1 to 3 took 2.1 to 3.1 seconds but wrote 4 to 6 % more, which
    /// slow links and storage billed per byte pay for every download. Readers do not depend on it.
    static let level: Int32 = 4
    /// The zlib header: deflate with a 32 KiB window, a level of 2 to 5 (`FLEVEL` 1), no preset
    /// dictionary.
    private static let zlibHeader: [UInt8] = [0x78, 0x5E]

    /// How many blocks are compressed at the same time: one per core, at most 4.
    var lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))

    /// Compresses all of `input` onto the end of `output`, calling `progress` with the bytes of
    /// `input` compressed so far after each block.
    /// - Throws: ``CompressionFailure`` if zlib fails, or the file handles' errors.
    func compress(_ input: FileHandle, onto output: FileHandle, progress: (Int64) -> Void) throws {
        try output.write(contentsOf: Self.zlibHeader)
        var checksum = adler32(0, nil, 0)
        var window: [UInt8] = []
        var written: Int64 = 0
        var finished = false
        while !finished {
            var round: [Block] = []
            while round.count < lanes, !finished {
                let bytes = try Self.readBlock(from: input)
                finished = bytes.count < Self.blockSize
                if !bytes.isEmpty {
                    // (zlib's Adler-32 of no bytes at all is its initial value, not the one passed.)
                    checksum = bytes.withUnsafeBufferPointer { adler32(checksum, $0.baseAddress, uInt($0.count)) }
                }
                round.append(Block(input: bytes, dictionary: window, isLast: finished))
                window = bytes.count >= Self.windowSize ? Array(bytes.suffix(Self.windowSize)) : Array((window + bytes).suffix(Self.windowSize))
            }
            for (block, compressed) in zip(round, try Self.deflate(round)) {
                try output.write(contentsOf: compressed)
                written += Int64(block.input.count)
                if !block.input.isEmpty { progress(written) }
            }
        }
        try output.write(contentsOf: withUnsafeBytes(of: UInt32(checksum).bigEndian, Array.init))
    }

    /// The next block of `input`: ``blockSize`` bytes, fewer only at the end of the input.
    private static func readBlock(from input: FileHandle) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(blockSize)
        while bytes.count < blockSize, let chunk = try input.read(upToCount: blockSize - bytes.count), !chunk.isEmpty {
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }

    /// One block to compress.
    private struct Block: Sendable {
        var input: [UInt8]
        /// The input just before this block (up to 32 KiB).
        var dictionary: [UInt8]
        /// Whether the block ends the stream.
        var isLast: Bool
    }

    /// Compresses the blocks at the same time: the first here, each other one on a new thread.
    private static func deflate(_ blocks: [Block]) throws -> [[UInt8]] {
        /// A block's result, written by its thread before it signals `done` and read after.
        final class Job: @unchecked Sendable {
            let block: Block
            var result: Result<[UInt8], any Error> = .success([])
            init(_ block: Block) { self.block = block }
            func run() { result = Result { try ParallelDeflate.deflate(block) } }
        }
        let jobs = blocks.map(Job.init)
        let done = DispatchSemaphore(value: 0)
        for job in jobs.dropFirst() {
            Thread {
                job.run()
                done.signal()
            }.start()
        }
        jobs.first?.run()
        for _ in jobs.dropFirst() { done.wait() }
        return try jobs.map { try $0.result.get() }
    }

    /// Deflates one block (raw deflate at ``level``), primed with its dictionary, ending with a
    /// sync flush, or with the final block when it is the last.
    private static func deflate(_ block: Block) throws -> [UInt8] {
        var stream = z_stream()
        let started = czlib_raw_deflate_init(&stream, level)
        guard started == Z_OK else { throw CompressionFailure(description: "zlib could not start (\(started))") }
        defer { deflateEnd(&stream) }
        if !block.dictionary.isEmpty {
            let primed = block.dictionary.withUnsafeBufferPointer { deflateSetDictionary(&stream, $0.baseAddress, uInt($0.count)) }
            guard primed == Z_OK else { throw CompressionFailure(description: "zlib refused the dictionary (\(primed))") }
        }
        // Room for the worst case, the flush marker and the final block: one call is enough.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(block.input.count))) + 64)
        var input = block.input
        let status = input.withUnsafeMutableBufferPointer { inputPointer in
            output.withUnsafeMutableBufferPointer { outputPointer in
                stream.next_in = inputPointer.baseAddress
                stream.avail_in = uInt(inputPointer.count)
                stream.next_out = outputPointer.baseAddress
                stream.avail_out = uInt(outputPointer.count)
                return CZlib.deflate(&stream, block.isLast ? Z_FINISH : Z_SYNC_FLUSH)
            }
        }
        guard status == (block.isLast ? Z_STREAM_END : Z_OK), stream.avail_in == 0, stream.avail_out > 0 else {
            throw CompressionFailure(description: "zlib could not compress a block (\(status))")
        }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}
