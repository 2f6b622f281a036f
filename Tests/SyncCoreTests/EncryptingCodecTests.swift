import Foundation
import RemoteProtocol
import TestSupport
import Testing

@testable import SyncCore

@Suite("Encrypted remote files")
struct EncryptingCodecTests {
    let scratch: TemporaryDirectory
    let codec = EncryptingCodec(dataKey: .random())
    let path: RemotePath = "com.example.notes/Documents/notebook/SyncChanges/anna/0001-set.syncchg"
    let chunk = 1 << Int(EncryptedFileFormat.writtenLog2ChunkSize)

    init() throws {
        scratch = try TemporaryDirectory(prefix: "synccore")
    }

    /// Encodes `bytes` for `path`, returning the encoded bytes.
    func encoded(_ bytes: [UInt8], for path: RemotePath? = nil) throws -> [UInt8] {
        let plain = scratch.appending("plain-\(UUID().uuidString)")
        let coded = scratch.appending("coded-\(UUID().uuidString)")
        try Data(bytes).write(to: plain)
        try codec.encode(plain, into: coded, for: path ?? self.path)
        return Array(try Data(contentsOf: coded))
    }

    /// Decodes `bytes` read from `path` into a file named "out" and returns its content.
    func decoded(_ bytes: [UInt8], for path: RemotePath? = nil, with codec: EncryptingCodec? = nil) throws -> [UInt8] {
        let coded = scratch.appending("coded-\(UUID().uuidString)")
        try Data(bytes).write(to: coded)
        try (codec ?? self.codec).decode(coded, into: scratch.appending("out"), for: path ?? self.path)
        return Array(try Data(contentsOf: scratch.appending("out")))
    }

    /// Expects decoding to fail with `kind`, leaving no output file (not even a partial one).
    func expectRefused(_ bytes: [UInt8], for path: RemotePath? = nil, with codec: EncryptingCodec? = nil, _ kind: EncryptedFileError.Kind) throws {
        let before = try scratch.names()
        let error = #expect(throws: SyncError.self) { try decoded(bytes, for: path, with: codec) }
        #expect(error?.code == .corruptRemoteData)
        #expect((error?.underlying as? EncryptedFileError)?.kind == kind)
        #expect(error?.message.contains((path ?? self.path).string) == true)
        #expect(try scratch.names().count == before.count + 1, "only the encoded input was added: no plaintext or partial file")
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    @Test("files of every size round-trip, each chunk adding one tag", arguments: [0, 1, 1000, 65_535, 65_536, 65_537, 3 * 65_536, 200_003])
    func roundTrip(size: Int) throws {
        let plain = Self.randomBytes(size)
        let coded = try encoded(plain)
        let chunks = max(1, (size + chunk - 1) / chunk)
        #expect(coded.count == EncryptedFileFormat.headerByteCount + size + chunks * EncryptedFileFormat.tagByteCount)
        #expect(try decoded(coded) == plain)
    }

    @Test("the header holds magic, version, chunk size, key id and salt; equal files encrypt differently")
    func header() throws {
        let plain = Array("the same content".utf8)
        let first = try encoded(plain)
        let second = try encoded(plain)
        #expect(Array(first[0..<4]) == Array("RSEF".utf8))
        #expect(first[4] == 1)
        #expect(first[5] == EncryptedFileFormat.writtenLog2ChunkSize)
        #expect(Array(first[6..<22]) == codec.dataKey.id.bytes)
        #expect(first != second, "a fresh salt per file gives a fresh file key")
        #expect(first.count == second.count)
    }

    @Test("flipping any bit of the header, the ciphertext or a tag is detected", arguments: [0, 4, 5, 10, 30, 53, 54, 1000, 65_600, 70_000])
    func bitFlip(offset: Int) throws {
        var coded = try encoded(Self.randomBytes(70_000))
        coded[offset] ^= 0x01
        let kind: EncryptedFileError.Kind =
            switch offset {
            case 0..<4: .notEncrypted
            case 4: .unsupportedVersion(Int(coded[4]))
            case 5: .authenticationFailed(chunk: 0)
            case 6..<22: .encryptedWithAnotherKey(fileKeyID: DataKeyID(bytes: coded[6..<22])!.hex, clientKeyID: codec.dataKey.id.hex)
            default: .authenticationFailed(chunk: offset < EncryptedFileFormat.headerByteCount + chunk + 16 ? 0 : 1)
            }
        try expectRefused(coded, kind)
    }

    @Test("a file cut at a chunk boundary, inside a chunk, or inside the header is detected")
    func truncation() throws {
        let coded = try encoded(Self.randomBytes(2 * chunk + 10))
        let firstChunkEnd = EncryptedFileFormat.headerByteCount + chunk + 16
        try expectRefused(Array(coded[..<(firstChunkEnd + chunk + 16)]), .authenticationFailed(chunk: 1))
        try expectRefused(Array(coded[..<firstChunkEnd]), .authenticationFailed(chunk: 0))
        try expectRefused(Array(coded.dropLast(1)), .authenticationFailed(chunk: 2))
        try expectRefused(Array(coded[..<(EncryptedFileFormat.headerByteCount + 5)]), .truncated)
        try expectRefused(Array(coded[..<EncryptedFileFormat.headerByteCount]), .truncated)
        try expectRefused(Array(coded[..<20]), .truncated)
        try expectRefused([], .truncated)
    }

    @Test("chunks reordered or appended are detected")
    func reorderAndAppend() throws {
        let coded = try encoded(Self.randomBytes(3 * chunk))
        let header = Array(coded[..<EncryptedFileFormat.headerByteCount])
        let sealed = stride(from: EncryptedFileFormat.headerByteCount, to: coded.count, by: chunk + 16).map {
            Array(coded[$0..<min($0 + chunk + 16, coded.count)])
        }
        #expect(sealed.count == 3)
        try expectRefused(header + sealed[1] + sealed[0] + sealed[2], .authenticationFailed(chunk: 0))
        try expectRefused(coded + sealed[2], .authenticationFailed(chunk: 2))
    }

    @Test("a file moved to another path, or from another file, fails to decrypt")
    func swappedPath() throws {
        let coded = try encoded(Array("a change set of anna".utf8))
        let other: RemotePath = "com.example.notes/Documents/notebook/SyncChanges/anna/0002-set.syncchg"
        try expectRefused(coded, for: other, .authenticationFailed(chunk: 0))
        let ben: RemotePath = "com.example.notes/Documents/notebook/SyncChanges/ben/0001-set.syncchg"
        try expectRefused(coded, for: ben, .authenticationFailed(chunk: 0))
    }

    @Test("a file of another data key, or not encrypted at all, is refused with a reason")
    func wrongKeyOrPlain() throws {
        let other = EncryptingCodec(dataKey: .random())
        let coded = try encoded(Array("secret".utf8))
        try expectRefused(coded, with: other, .encryptedWithAnotherKey(fileKeyID: codec.dataKey.id.hex, clientKeyID: other.dataKey.id.hex))
        try expectRefused(Array(String(repeating: "{\"plain\": true}", count: 10).utf8), .notEncrypted)
        var future = coded
        future[4] = 2
        try expectRefused(future, .unsupportedVersion(2))
        var hugeChunks = coded
        hugeChunks[5] = 40
        try expectRefused(hugeChunks, .malformedHeader)
    }

    @Test("a failed decode leaves the destination as it was; a successful one replaces it")
    func decodeReplacesOnlyOnSuccess() throws {
        let good = try encoded(Array("version two".utf8))
        try Data("version one".utf8).write(to: scratch.appending("out"))
        var bad = good
        bad[bad.count - 1] ^= 0x80
        #expect(throws: SyncError.self) { try decoded(bad) }
        #expect(try Data(contentsOf: scratch.appending("out")) == Data("version one".utf8))
        #expect(try decoded(good) == Array("version two".utf8))
        #expect(try scratch.names().allSatisfy { !$0.hasSuffix(".partial") })
    }
}
