import Foundation
import GRDB

/// Reads the fields of one record body, checking every length against the bytes present.
///
/// Bodies are arrays, except large ones (see ``ChangeSetReader``), which are `Data`: a BLOB value
/// of such a body is a slice of it, sharing its storage, so a large value is in memory once.
struct ByteCursor<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    private let bytes: Bytes
    private var position: Int
    /// Offset of the body in the whole stream, for error messages.
    private let streamOffset: Int

    init(_ bytes: Bytes, streamOffset: Int) {
        position = bytes.startIndex
        self.bytes = bytes
        self.streamOffset = streamOffset
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    func malformed(_ what: String) -> ChangeSetFormatError {
        ChangeSetFormatError(.malformed(what), offset: streamOffset + position - bytes.startIndex)
    }

    mutating func byte() throws(ChangeSetFormatError) -> UInt8 {
        guard position < bytes.endIndex else { throw malformed("record ends inside a field") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(ChangeSetFormatError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            if shift == 63 && next > 1 { throw malformed("varint overflows 64 bits") }
            result |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return result }
            shift += 7
            if shift > 63 { throw malformed("varint longer than 10 bytes") }
        }
    }

    /// A varint that must fit in `Int` and not exceed `limit`.
    mutating func count(limit: Int, _ what: String) throws(ChangeSetFormatError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw malformed("\(what) \(value) exceeds \(limit)") }
        return Int(value)
    }

    mutating func take(_ length: Int) throws(ChangeSetFormatError) -> Bytes.SubSequence {
        guard length <= bytes.endIndex - position else { throw malformed("length \(length) runs past the record") }
        defer { position += length }
        return bytes[position..<position + length]
    }

    mutating func string(limit: Int = ChangeSetFormat.maximumRecordLength) throws(ChangeSetFormatError) -> String {
        let length = try count(limit: limit, "string length")
        let slice = try take(length)
        // Through a contiguous buffer: the generic collection path is several times slower.
        guard let text = slice.withContiguousStorageIfAvailable({ String(validating: $0, as: UTF8.self) }) ?? String(validating: slice, as: UTF8.self) else {
            throw malformed("invalid UTF-8 text")
        }
        return text
    }

    /// Steps over one value, checking its framing and that text is valid UTF-8 (as ``value()``
    /// does), but building nothing.
    /// - Returns: the value's tag.
    @discardableResult
    mutating func skipValue() throws(ChangeSetFormatError) -> ChangeSetFormat.ValueTag {
        let tagByte = try byte()
        let tag = ChangeSetFormat.ValueTag(rawValue: tagByte)
        switch tag {
        case .null: break
        case .integer: _ = try varint()
        case .real: _ = try take(8)
        case .blob: _ = try take(try count(limit: ChangeSetFormat.maximumRecordLength, "value length"))
        case .text:
            let text = try take(try count(limit: ChangeSetFormat.maximumRecordLength, "value length"))
            guard Self.isValidUTF8(text) else { throw malformed("invalid UTF-8 text") }
        case nil: throw malformed("unknown value tag \(tagByte)")
        }
        return tag ?? .null
    }

    /// Whether `bytes` are valid UTF-8, without building a string (ASCII is checked in one pass).
    private static func isValidUTF8(_ bytes: Bytes.SubSequence) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    mutating func value() throws(ChangeSetFormatError) -> DatabaseValue {
        let tagByte = try byte()
        switch ChangeSetFormat.ValueTag(rawValue: tagByte) {
        case .null:
            return .null
        case .integer:
            let zigzag = try varint()
            return Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1))).databaseValue
        case .real:
            var bits: UInt64 = 0
            for (index, byte) in try take(8).enumerated() {
                bits |= UInt64(byte) << (8 * UInt64(index))
            }
            return Double(bitPattern: bits).databaseValue
        case .text:
            return try string().databaseValue
        case .blob:
            let length = try count(limit: ChangeSetFormat.maximumRecordLength, "blob length")
            let slice = try take(length)
            // A slice of a Data body shares its storage; an array slice is copied.
            return ((slice as? Data) ?? Data(slice)).databaseValue
        case nil:
            throw malformed("unknown value tag \(tagByte)")
        }
    }
}
