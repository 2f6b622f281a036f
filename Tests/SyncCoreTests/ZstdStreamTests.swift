import CZstd
import Foundation
import Testing

@testable import SyncCore

@Suite("Streaming zstd compression of whole stores")
struct ZstdStreamTests {
    private func scratch(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("zstd-\(UUID().uuidString)-\(name)")
    }

    /// Half random, half text in stretches of 2 KiB, so every part of a stream holds both
    /// incompressible and well-compressed data.
    private func mixed(_ size: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<size).map { index in
            index % 4096 < 2048 ? UInt8.random(in: 0...255, using: &generator) : UInt8(ascii: "a") + UInt8(index % 23)
        })
    }

    @Test("files of every size round-trip, on the calling thread or on worker threads, and a compressible file shrinks")
    func roundTrip() throws {
        // The system libzstd has worker threads, so `workers: 2` below really uses them.
        #expect(ZSTD_cParam_getBounds(ZSTD_c_nbWorkers).upperBound > 0)
        let repetitive = Data(String(repeating: "INSERT INTO note VALUES ('n1', 'milk'); ", count: 80_000).utf8)
        // Up to several of the compressor's chunks and of its workers' jobs.
        for original in [Data(), Data([42]), mixed(300_000), repetitive, mixed(9 << 20 | 77)] {
            for workers in [0, 2] {
                let source = scratch("source"), packed = scratch("packed"), unpacked = scratch("unpacked")
                defer { [source, packed, unpacked].forEach { try? FileManager.default.removeItem(at: $0) } }
                try original.write(to: source)
                var compressed: [Int64] = []
                try ZstdStream.compress(source, to: packed, workers: workers) { compressed.append($0) }
                #expect(compressed == compressed.sorted() && (compressed.last ?? 0) == Int64(original.count))
                var read: [Int64] = []
                try ZstdStream.decompress(packed, to: unpacked) { read.append($0) }
                #expect(try Data(contentsOf: unpacked) == original, "\(original.count) bytes, \(workers) workers")
                #expect(read.last ?? 0 == Int64(try Data(contentsOf: packed).count))
                if original == repetitive {
                    #expect(try Data(contentsOf: packed).count * 20 < original.count)
                }
            }
        }
    }

    @Test("a truncated, damaged, over-long or foreign stream is refused")
    func damagedStreams() throws {
        let source = scratch("source"), packed = scratch("packed"), bad = scratch("bad"), out = scratch("out")
        defer { [source, packed, bad, out].forEach { try? FileManager.default.removeItem(at: $0) } }
        try mixed(600_000).write(to: source)
        try ZstdStream.compress(source, to: packed)
        let stream = try Data(contentsOf: packed)
        var flipped = stream
        flipped[stream.count / 2] ^= 0x55
        var lastFlipped = stream
        lastFlipped[stream.count - 1] ^= 0x01  // in the content checksum only
        // A skippable frame (magic 0x184D2A50, 4 bytes of content): libzstd alone would take it for a stream of nothing.
        let skippable = Data([0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4])
        let damaged = [
            stream.prefix(stream.count / 2), stream.prefix(1), stream.dropLast(), flipped, lastFlipped, stream + Data([0]), stream + stream,
            Data(), Data("not zstd".utf8), skippable, skippable + stream,
        ]
        for bytes in damaged {
            try Data(bytes).write(to: bad)
            #expect(throws: CompressionFailure.self, "\(bytes.count) bytes") { try ZstdStream.decompress(bad, to: out) }
        }
    }

    @Test("bytes after a frame that ends exactly where a read of the file ends are refused too")
    func trailingBytesAfterAFullRead() throws {
        let source = scratch("source"), packed = scratch("packed"), out = scratch("out")
        defer { [source, packed, out].forEach { try? FileManager.default.removeItem(at: $0) } }
        // Random bytes are stored as they are, so the frame grows one byte per input byte: some
        // input size makes it exactly one read (1 MiB) long.
        var generator = SystemRandomNumberGenerator()
        let random = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var size = (1 << 20) - 64
        var stream = Data()
        while stream.count != 1 << 20, size < 1 << 20 {
            try random.prefix(size).write(to: source)
            try ZstdStream.compress(source, to: packed, workers: 0)
            stream = try Data(contentsOf: packed)
            size += (1 << 20) - stream.count
        }
        try #require(stream.count == 1 << 20)
        try ZstdStream.decompress(packed, to: out)
        #expect(try Data(contentsOf: out) == random.prefix(size))
        try (stream + Data([0])).write(to: packed)
        #expect(throws: CompressionFailure.self) { try ZstdStream.decompress(packed, to: out) }
    }

    @Test("a stream that expands beyond its limit is stopped before writing past it")
    func limit() throws {
        let source = scratch("source"), packed = scratch("packed"), out = scratch("out")
        defer { [source, packed, out].forEach { try? FileManager.default.removeItem(at: $0) } }
        let original = Data(repeating: 0, count: 4 << 20)
        try original.write(to: source)
        try ZstdStream.compress(source, to: packed)
        try ZstdStream.decompress(packed, to: out, limit: UInt64(original.count))
        #expect(try Data(contentsOf: out) == original)
        let error = #expect(throws: CompressionFailure.self) { try ZstdStream.decompress(packed, to: out, limit: 1_000_000) }
        #expect(error?.description.contains("beyond 1000000 bytes") == true)
        #expect(try Data(contentsOf: out).count <= 1_000_000)
    }
}
