import CZlib
import Foundation
import Testing

@testable import SyncCore

@Suite("Streaming zlib compression of whole stores and change sets")
struct ZlibStreamTests {
    private func scratch(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("zlib-\(UUID().uuidString)-\(name)")
    }

    @Test("files of several sizes round-trip, and a compressible file shrinks")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let random = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let repetitive = Data(String(repeating: "INSERT INTO note VALUES ('n1', 'milk'); ", count: 80_000).utf8)
        for original in [Data(), Data([42]), random, repetitive] {
            let source = scratch("source"), packed = scratch("packed"), unpacked = scratch("unpacked")
            defer { [source, packed, unpacked].forEach { try? FileManager.default.removeItem(at: $0) } }
            try original.write(to: source)
            try ZlibStream.compress(source, to: packed)
            try ZlibStream.decompress(packed, to: unpacked)
            #expect(try Data(contentsOf: unpacked) == original)
            if original == repetitive {
                #expect(try Data(contentsOf: packed).count * 20 < original.count)
            }
        }
    }

    @Test("a truncated, damaged or over-long stream is refused")
    func damagedStreams() throws {
        let source = scratch("source"), packed = scratch("packed"), bad = scratch("bad"), out = scratch("out")
        defer { [source, packed, bad, out].forEach { try? FileManager.default.removeItem(at: $0) } }
        try Data(String(repeating: "whole store ", count: 50_000).utf8).write(to: source)
        try ZlibStream.compress(source, to: packed)
        let stream = try Data(contentsOf: packed)
        var flipped = stream
        flipped[stream.count / 2] ^= 0x55
        for damaged in [stream.prefix(stream.count / 2), stream.prefix(1), flipped, stream + Data([0]), Data("not zlib".utf8)] {
            try Data(damaged).write(to: bad)
            #expect(throws: CompressionFailure.self) { try ZlibStream.decompress(bad, to: out) }
        }
    }
    /// Compresses `original` with `lanes` blocks at once; returns the stream.
    private func deflated(_ original: Data, lanes: Int) throws -> Data {
        let source = scratch("source"), packed = scratch("packed")
        defer { [source, packed].forEach { try? FileManager.default.removeItem(at: $0) } }
        try original.write(to: source)
        #expect(FileManager.default.createFile(atPath: packed.path, contents: nil))
        let input = try FileHandle(forReadingFrom: source), output = try FileHandle(forWritingTo: packed)
        var reported: [Int64] = []
        try ParallelDeflate(lanes: lanes).compress(input, onto: output) { reported.append($0) }
        try input.close()
        try output.close()
        #expect((reported.last ?? 0) == Int64(original.count))
        #expect(reported == reported.sorted())
        return try Data(contentsOf: packed)
    }

    @Test("inputs cut into blocks across every kind of boundary round-trip, whatever the number of lanes, to the same bytes")
    func blocksRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let block = ParallelDeflate.blockSize
        for size in [0, 1, block - 1, block, block + 1, 3 * block, 3 * block + 7_000] {
            // Half random, half text, so blocks hold both stored-like and well-compressed stretches.
            let original = Data((0..<size).map { index in
                index % 4096 < 2048 ? UInt8.random(in: 0...255, using: &generator) : UInt8(ascii: "a") + UInt8(index % 23)
            })
            let one = try deflated(original, lanes: 1)
            #expect(try deflated(original, lanes: 3) == one)
            let packed = scratch("packed"), unpacked = scratch("unpacked")
            defer { [packed, unpacked].forEach { try? FileManager.default.removeItem(at: $0) } }
            try one.write(to: packed)
            try ZlibStream.decompress(packed, to: unpacked)
            #expect(try Data(contentsOf: unpacked) == original, "size \(size)")
        }
    }

    @Test("each block refers back across the cut: a pattern repeated over many blocks is stored about once")
    func blocksShareTheWindow() throws {
        var generator = SystemRandomNumberGenerator()
        let pattern = (0..<30_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let original = Data((0..<(4 * ParallelDeflate.blockSize / pattern.count + 1)).flatMap { _ in pattern })
        // Without the previous block's window as a dictionary, each of the 5 blocks would hold the
        // 30,000 random bytes once more (150,000 bytes or more in all).
        let size = try deflated(original, lanes: 2).count
        #expect(size < 4 * pattern.count, "\(size) bytes")
    }
    @Test("an input shorter than a block is the very stream zlib's own one-shot compress2 writes at the same level")
    func oneBlockIsPlainZlib() throws {
        let original = Data(String(repeating: "INSERT INTO note VALUES ('n1', 'milk'); ", count: 2_000).utf8)
        var expected = [UInt8](repeating: 0, count: Int(compressBound(uLong(original.count))))
        var length = uLongf(expected.count)
        let status = original.withUnsafeBytes { source in
            compress2(&expected, &length, source.bindMemory(to: Bytef.self).baseAddress, uLong(original.count), ParallelDeflate.level)
        }
        #expect(status == Z_OK)
        #expect(try deflated(original, lanes: 2) == Data(expected.prefix(Int(length))))
    }
}
