import Foundation
import Testing

@testable import SyncCore

@Suite("Streaming zlib compression of whole stores")
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
            #expect(throws: ZlibStream.Failure.self) { try ZlibStream.decompress(bad, to: out) }
        }
    }
}
