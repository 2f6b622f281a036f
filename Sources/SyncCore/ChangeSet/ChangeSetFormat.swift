import Foundation
import GRDB

/// Constants of the change-set wire format (described byte by byte in Docs/RemoteFormat.md,
/// section "Change sets").
public enum ChangeSetFormat {
    /// The four bytes every change set starts with: ASCII `RSCS`.
    public static let magic: [UInt8] = [0x52, 0x53, 0x43, 0x53]
    /// The format version this library writes and the newest it reads.
    public static let version: UInt8 = 1
    /// The largest record body accepted (1 GiB; SQLite's own default limit for a value is 1e9 bytes).
    public static let maximumRecordLength = 1 << 30
    /// The longest identifier (set id, client id, table or column name) accepted, in UTF-8 bytes.
    public static let maximumNameLength = 4096

    /// Record kinds (first byte of a record body).
    enum RecordKind: UInt8 {
        case end = 0
        case tableDefinition = 1
        case insert = 2
        case update = 3
        case delete = 4
    }

    /// Value tags (first byte of an encoded value).
    enum ValueTag: UInt8 {
        case null = 0
        case integer = 1
        case real = 2
        case text = 3
        case blob = 4
    }
}

extension [UInt8] {
    /// Appends an unsigned LEB128 varint.
    mutating func appendVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        append(UInt8(rest))
    }

    /// Appends a length-prefixed UTF-8 string.
    mutating func appendString(_ string: String) {
        var copy = string
        copy.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            append(contentsOf: utf8)
        }
    }

    /// Appends a tagged SQLite value.
    mutating func appendValue(_ value: DatabaseValue) {
        switch value.storage {
        case .null:
            append(ChangeSetFormat.ValueTag.null.rawValue)
        case .int64(let integer):
            append(ChangeSetFormat.ValueTag.integer.rawValue)
            appendVarint(UInt64(bitPattern: (integer << 1) ^ (integer >> 63)))
        case .double(let real):
            append(ChangeSetFormat.ValueTag.real.rawValue)
            var bits = real.bitPattern.littleEndian
            Swift.withUnsafeBytes(of: &bits) { append(contentsOf: $0) }
        case .string(let text):
            append(ChangeSetFormat.ValueTag.text.rawValue)
            appendString(text)
        case .blob(let data):
            append(ChangeSetFormat.ValueTag.blob.rawValue)
            appendVarint(UInt64(data.count))
            append(contentsOf: data)
        }
    }
}

/// Reads the fields of one record body, checking every length against the bytes present.
struct ByteCursor {
    private let bytes: [UInt8]
    private var position = 0
    /// Offset of the body in the whole stream, for error messages.
    private let streamOffset: Int

    init(_ bytes: [UInt8], streamOffset: Int) {
        self.bytes = bytes
        self.streamOffset = streamOffset
    }

    var isAtEnd: Bool { position == bytes.count }

    func malformed(_ what: String) -> ChangeSetFormatError {
        ChangeSetFormatError(.malformed(what), offset: streamOffset + position)
    }

    mutating func byte() throws(ChangeSetFormatError) -> UInt8 {
        guard position < bytes.count else { throw malformed("record ends inside a field") }
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

    mutating func take(_ length: Int) throws(ChangeSetFormatError) -> ArraySlice<UInt8> {
        guard length <= bytes.count - position else { throw malformed("length \(length) runs past the record") }
        defer { position += length }
        return bytes[position..<position + length]
    }

    mutating func string(limit: Int = ChangeSetFormat.maximumRecordLength) throws(ChangeSetFormatError) -> String {
        let length = try count(limit: limit, "string length")
        let slice = try take(length)
        guard let text = String(validating: slice, as: UTF8.self) else { throw malformed("invalid UTF-8 text") }
        return text
    }

    /// Steps over one value, checking its framing but building nothing.
    mutating func skipValue() throws(ChangeSetFormatError) {
        let tagByte = try byte()
        switch ChangeSetFormat.ValueTag(rawValue: tagByte) {
        case .null: break
        case .integer: _ = try varint()
        case .real: _ = try take(8)
        case .text, .blob: _ = try take(try count(limit: ChangeSetFormat.maximumRecordLength, "value length"))
        case nil: throw malformed("unknown value tag \(tagByte)")
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
            return Data(try take(length)).databaseValue
        case nil:
            throw malformed("unknown value tag \(tagByte)")
        }
    }
}
