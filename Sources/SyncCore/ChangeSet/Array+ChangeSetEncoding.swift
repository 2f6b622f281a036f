import Foundation
import GRDB

/// Appending change-set primitives (see Docs/RemoteFormat.md) to a byte buffer.
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
