import Foundation
import GRDB
import Testing
@testable import SyncCore

@Suite("Change-set compression")
struct ChangeSetCompressionTests {
    /// A set of `rows` inserts of five short text and number columns, as apps write them.
    static func rowsSet(_ rows: Int, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("rows.syncchg")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: "set-1", databaseID: "client"))
        let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000, counter: 0)
        for row in 0..<rows {
            try writer.write(RowChange(kind: .insert, table: "note", key: "note-\(row)".databaseValue, clock: clock, columns: [
                .init(name: "title", value: "Note number \(row)".databaseValue, clock: clock),
                .init(name: "body", value: "Remember to buy \(row % 17) apples".databaseValue, clock: clock),
                .init(name: "folder", value: "folder-\(row % 10)".databaseValue, clock: clock),
                .init(name: "position", value: row.databaseValue, clock: clock),
                .init(name: "score", value: (Double(row) / 7).databaseValue, clock: clock),
            ]))
        }
        _ = try writer.finish()
        return url
    }

    static func size(_ url: URL) throws -> Int {
        try Data(contentsOf: url).count
    }

    @Test("a set of rows shrinks more than threefold and expands to the same bytes")
    func rowsShrink() throws {
        let directory = try ChangeSetFormatTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Self.rowsSet(20_000, in: directory)
        let compressed = directory.appendingPathComponent("compressed")
        #expect(try ChangeSetCompression.compress(original, to: compressed))
        let bytes = try Data(contentsOf: compressed)
        #expect(Array(bytes.prefix(5)) == ChangeSetCompression.magic + [1])
        #expect(try Self.size(original) > 3 * bytes.count)
        try ChangeSetCompression.expandIfCompressed(compressed)
        #expect(try Data(contentsOf: compressed) == Data(contentsOf: original))
        // A set as it is stays as it is.
        try ChangeSetCompression.expandIfCompressed(original)
        #expect(try Data(contentsOf: compressed) == Data(contentsOf: original))
    }

    @Test("a set of random bytes is not compressed: nothing is stored larger")
    func randomBytesStayAsTheyAre() throws {
        let directory = try ChangeSetFormatTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("blobs.syncchg")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: "set-2", databaseID: "client"))
        let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000, counter: 0)
        var generator = SystemRandomNumberGenerator()
        for row in 0..<4 {
            let blob = Data((0..<300_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try writer.write(RowChange(kind: .insert, table: "photo", key: "p\(row)".databaseValue, clock: clock, columns: [
                .init(name: "data", value: blob.databaseValue, clock: clock)
            ]))
        }
        _ = try writer.finish()
        let compressed = directory.appendingPathComponent("compressed")
        #expect(try !ChangeSetCompression.compress(url, to: compressed))
        #expect(!FileManager.default.fileExists(atPath: compressed.path))
    }

    @Test("a damaged, truncated, mislabelled or unknown-method compressed set is refused with a reason")
    func damagedSetsAreRefused() throws {
        let directory = try ChangeSetFormatTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Self.rowsSet(2_000, in: directory)
        let compressed = directory.appendingPathComponent("compressed")
        #expect(try ChangeSetCompression.compress(original, to: compressed))
        let good = try Data(contentsOf: compressed)
        var wrongSize = good
        wrongSize[5] ^= 0x01
        var unknownMethod = good
        unknownMethod[4] = 9
        var flipped = good
        flipped[good.count / 2] ^= 0xFF
        let cases: [(String, Data)] = [
            ("truncated stream", good.prefix(good.count - 7)),
            ("truncated header", good.prefix(9)),
            ("flipped byte", flipped),
            ("wrong size", wrongSize),
            ("unknown method", unknownMethod),
            ("trailing bytes", good + Data([0, 1, 2])),
        ]
        for (what, bytes) in cases {
            let file = directory.appendingPathComponent(what)
            try bytes.write(to: file)
            #expect(throws: ChangeSetCompression.Failure.self, "\(what)") { try ChangeSetCompression.expandIfCompressed(file) }
            #expect(try Data(contentsOf: file) == bytes, "\(what): the file is left as it was")
        }
    }

    /// A compressed "set" of `zeros` zero bytes whose header announces `announced` bytes.
    static func zeroBomb(_ zeros: Int, announcing announced: UInt64, in directory: URL) throws -> URL {
        let plain = directory.appendingPathComponent("zeros-\(zeros)")
        _ = FileManager.default.createFile(atPath: plain.path, contents: nil)
        let handle = try FileHandle(forWritingTo: plain)
        let megabyte = Data(count: 1 << 20)
        for _ in 0..<(zeros >> 20) { try handle.write(contentsOf: megabyte) }
        try handle.close()
        var header = Data(ChangeSetCompression.magic)
        header.append(1)
        withUnsafeBytes(of: announced.littleEndian) { header.append(contentsOf: $0) }
        let bomb = directory.appendingPathComponent("bomb-\(zeros)-\(announced)")
        try ZlibStream.compress(plain, to: bomb, header: header)
        try FileManager.default.removeItem(at: plain)
        return bomb
    }

    @Test("a set that expands beyond the size its header announces is refused as soon as it does, having written no more than that")
    func expansionIsBoundedByTheHeader() throws {
        let directory = try ChangeSetFormatTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 256 MiB of zeros compress to about 256 KiB; the header claims 1 MiB.
        let bomb = try Self.zeroBomb(256 << 20, announcing: 1 << 20, in: directory)
        let compressedSize = try Self.size(bomb)
        #expect(compressedSize < 1 << 20)
        let error = try #require(throws: ChangeSetCompression.Failure.self) { try ChangeSetCompression.expandIfCompressed(bomb) }
        #expect(error.description.contains("expands beyond 1048576 bytes"), "\(error)")
        #expect(try Self.size(bomb) == compressedSize, "the file is left as it was")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".expanding-") }
        #expect(leftovers.isEmpty, "the partial expansion is removed")
    }

    @Test("a set whose announced size the disk cannot take is refused before anything is written")
    func expansionNeedsRoomOnDisk() throws {
        let directory = try ChangeSetFormatTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bomb = try Self.zeroBomb(1 << 20, announcing: UInt64(1) << 60, in: directory)
        let error = try #require(throws: SyncError.self) { try ChangeSetCompression.expandIfCompressed(bomb) }
        #expect(error.code == .local && error.message.contains("more than the disk can take"), "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".expanding-") })
    }
}
