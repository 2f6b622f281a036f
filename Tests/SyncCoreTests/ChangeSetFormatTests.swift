import Foundation
import GRDB
import Testing
@testable import SyncCore

@Suite("Change-set format")
struct ChangeSetFormatTests {
    static let header = ChangeSetHeader(setID: "0001-set", databaseID: "client-Ä")

    static func sampleChanges() -> [RowChange] {
        let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000, counter: 5)
        let bigText = String(repeating: "日本語テキスト🙂", count: 40_000)
        let bigBlob = Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        return [
            RowChange(kind: .insert, table: "items", key: "k1".databaseValue, clock: clock, columns: [
                .init(name: "n", value: .null, clock: clock),
                .init(name: "i", value: Int64.min.databaseValue, clock: HLCTimestamp(rawValue: clock.rawValue - 3)),
                .init(name: "j", value: Int64.max.databaseValue, clock: clock),
                .init(name: "z", value: 0.databaseValue, clock: clock),
                .init(name: "r", value: (-1.5e-300).databaseValue, clock: clock),
                .init(name: "t", value: bigText.databaseValue, clock: clock),
                .init(name: "e", value: "".databaseValue, clock: clock),
                .init(name: "b", value: bigBlob.databaseValue, clock: clock),
            ]),
            RowChange(kind: .update, table: "items", key: Data([0, 255]).databaseValue, clock: HLCTimestamp(rawValue: clock.rawValue + 1), columns: [
                .init(name: "new column", value: Double.infinity.databaseValue, clock: HLCTimestamp(rawValue: clock.rawValue + 1)),
            ]),
            RowChange(kind: .delete, table: "other table", key: "gone".databaseValue, clock: HLCTimestamp(rawValue: clock.rawValue + 2)),
            // Keys of numeric-affinity columns hold number-like values as numbers.
            RowChange(kind: .delete, table: "other table", key: 42.databaseValue, clock: HLCTimestamp(rawValue: clock.rawValue + 2)),
            RowChange(kind: .update, table: "items", key: 12_000.0.databaseValue, clock: clock, columns: [
                .init(name: "n", value: "x".databaseValue, clock: clock),
            ]),
        ]
    }

    static func encodedSample(in directory: URL) throws -> (URL, ChangeSetSummary) {
        let url = directory.appendingPathComponent("sample.syncchg")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: header)
        for change in sampleChanges() {
            try writer.write(change)
        }
        return (url, try writer.finish())
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("changeset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("every SQLite value type, large TEXT and BLOB and unicode survive a round trip")
    func roundTrip() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, written) = try Self.encodedSample(in: directory)
        let reader = try ChangeSetReader(contentsOf: url)
        #expect(reader.header == Self.header)
        var decoded: [RowChange] = []
        while let change = try reader.next() {
            decoded.append(change)
        }
        #expect(decoded == Self.sampleChanges())
        #expect(reader.summary == written)
        #expect(written.changeCount == 5)
        #expect(written.byteCount == (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int))
        #expect(try ChangeSetReader.verify(fileAt: url) == written)
    }

    @Test("an empty set is valid")
    func emptySet() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("empty")
        let summary = try ChangeSetWriter(creatingFileAt: url, header: Self.header).finish()
        #expect(summary.changeCount == 0)
        #expect(try ChangeSetReader.verify(fileAt: url).changeCount == 0)
    }

    @Test("a change set cut short anywhere is refused as truncated or malformed, never read as complete")
    func truncation() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.encodedSample(in: directory)
        let bytes = try Data(contentsOf: url)
        let cut = directory.appendingPathComponent("cut")
        for length in [0, 3, 5, 6, 40, 1000, bytes.count / 2, bytes.count - 5, bytes.count - 4, bytes.count - 1] {
            try bytes.prefix(length).write(to: cut)
            let error = try #require(throws: ChangeSetFormatError.self) { try ChangeSetReader.verify(fileAt: cut) }
            switch error.reason {
            case .truncated, .notAChangeSet, .malformed: break
            default: Issue.record("length \(length): unexpected \(error)")
            }
        }
    }

    @Test("a flipped bit anywhere is detected", arguments: [7, 30, 200, 150_000, 1_500_000, -3, -10])
    func corruption(position: Int) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.encodedSample(in: directory)
        var bytes = try Data(contentsOf: url)
        let index = position >= 0 ? position : bytes.count + position
        bytes[index] ^= 0x10
        try bytes.write(to: url)
        #expect(throws: ChangeSetFormatError.self) { try ChangeSetReader.verify(fileAt: url) }
    }

    @Test("invalid UTF-8 text behind a valid checksum is refused by verification, which builds no values")
    func invalidTextWithValidChecksum() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("text.syncchg")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: Self.header)
        let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000)
        try writer.write(RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: clock, columns: [
            .init(name: "t", value: "MARKER".databaseValue, clock: clock),
        ]))
        try writer.finish()
        var bytes = [UInt8](try Data(contentsOf: url))
        let marker = Array("MARKER".utf8)
        let start = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
        bytes[start] = 0xC3
        bytes[start + 1] = 0x28
        var crc = CRC32()
        bytes[..<(bytes.count - 4)].withUnsafeBytes { crc.update($0) }
        for index in 0..<4 {
            bytes[bytes.count - 4 + index] = UInt8(truncatingIfNeeded: crc.value >> (8 * UInt32(index)))
        }
        try Data(bytes).write(to: url)
        let error = try #require(throws: ChangeSetFormatError.self) { try ChangeSetReader.verify(fileAt: url) }
        #expect(error.reason == .malformed("invalid UTF-8 text"))
    }

    @Test("wrong magic, newer versions and trailing bytes are refused with their own reasons")
    func headerAndTrailer() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, _) = try Self.encodedSample(in: directory)
        let bytes = try Data(contentsOf: url)

        var notOurs = bytes
        notOurs[0] = UInt8(ascii: "X")
        try notOurs.write(to: url)
        #expect(throws: ChangeSetFormatError(.notAChangeSet, offset: 0)) { try ChangeSetReader.verify(fileAt: url) }

        var newer = bytes
        newer[4] = 9
        try newer.write(to: url)
        #expect(throws: ChangeSetFormatError(.unsupportedVersion(9))) { try ChangeSetReader.verify(fileAt: url) }

        try (bytes + [0]).write(to: url)
        let error = try #require(throws: ChangeSetFormatError.self) { try ChangeSetReader.verify(fileAt: url) }
        #expect(error.reason == .trailingBytes)
    }

    @Test("changes that cannot be represented are refused by the encoder")
    func unencodable() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try ChangeSetWriter(creatingFileAt: directory.appendingPathComponent("x"), header: Self.header)
        let clock = HLCTimestamp(rawValue: 100)
        let future = RowChange(kind: .update, table: "t", key: "k".databaseValue, clock: clock, columns: [
            .init(name: "c", value: 1.databaseValue, clock: HLCTimestamp(rawValue: 101)),
        ])
        #expect(throws: ChangeSetFormatError.self) { try writer.write(future) }
        let twice = RowChange(kind: .update, table: "t", key: "k".databaseValue, clock: clock, columns: [
            .init(name: "c", value: 1.databaseValue, clock: clock),
            .init(name: "c", value: 2.databaseValue, clock: clock),
        ])
        #expect(throws: ChangeSetFormatError.self) { try writer.write(twice) }
        #expect(throws: ChangeSetFormatError.self) { try writer.write(RowChange(kind: .delete, table: "t", key: .null, clock: clock)) }
        #expect(throws: ChangeSetFormatError.self) {
            try ChangeSetWriter(creatingFileAt: directory.appendingPathComponent("y"), header: ChangeSetHeader(setID: "", databaseID: "c"))
        }
    }
}

@Suite("Change-set format documentation")
struct ChangeSetFormatDocumentationTests {
    @Test("the example of Docs/RemoteFormat.md encodes byte for byte")
    func documentedExample() throws {
        let directory = try ChangeSetFormatTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("example")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: "s1", databaseID: "c"))
        let clock = HLCTimestamp(rawValue: 0x10000)
        try writer.write(RowChange(kind: .insert, table: "items", key: "k".databaseValue, clock: clock, columns: [
            .init(name: "name", value: "Ä".databaseValue, clock: clock),
        ]))
        try writer.finish()
        let bytes = [UInt8](try Data(contentsOf: url))
        let documented: [UInt8] = [
            0x52, 0x53, 0x43, 0x53, 0x01,
            0x05, 0x02, 0x73, 0x31, 0x01, 0x63,
            0x0e, 0x01, 0x00, 0x05, 0x69, 0x74, 0x65, 0x6d, 0x73, 0x01, 0x04, 0x6e, 0x61, 0x6d, 0x65,
            0x0f, 0x02, 0x00, 0x03, 0x01, 0x6b, 0x80, 0x80, 0x04, 0x01, 0x00, 0x00, 0x03, 0x02, 0xc3, 0x84,
            0x08, 0x00, 0x01, 0x80, 0x80, 0x04, 0x80, 0x80, 0x04,
        ]
        #expect(Array(bytes.dropLast(4)) == documented)
        #expect(Array(bytes.suffix(4)) == [0x72, 0xca, 0xe5, 0x47], "CRC-32 as zlib computes it")
    }
}
