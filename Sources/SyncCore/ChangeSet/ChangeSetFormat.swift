/// Constants of the change-set wire format (described byte by byte in Docs/RemoteFormat.md,
/// section "Change sets").
package enum ChangeSetFormat {
    /// The four bytes every change set starts with: ASCII `RSCS`.
    package static let magic: [UInt8] = [0x52, 0x53, 0x43, 0x53]
    /// The format version this library writes and the newest it reads.
    package static let version: UInt8 = 1
    /// The largest record body accepted (1 GiB; SQLite's own default limit for a value is 1e9 bytes).
    package static let maximumRecordLength = 1 << 30
    /// The longest identifier (set id, client id, table or column name) accepted, in UTF-8 bytes.
    package static let maximumNameLength = 4096

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
