/// A change set that cannot be encoded or decoded. Decoding errors are raised before anything of the
/// set is applied (see ``LocalStore/applyChangeSet(at:resolver:)``).
package struct ChangeSetFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    package enum Reason: Sendable, Equatable {
        /// The stream does not start with the change-set magic bytes.
        case notAChangeSet
        /// The stream was written by a newer format version than this library reads.
        case unsupportedVersion(UInt8)
        /// The stream ends before its trailer: it was cut short.
        case truncated
        /// A record or field is malformed (bad tag, bad length, invalid UTF-8, unknown table index…).
        case malformed(String)
        /// The trailer's checksum does not match the bytes read: the stream was altered.
        case checksumMismatch
        /// The trailer's change count does not match the records read.
        case countMismatch(expected: Int, found: Int)
        /// Bytes follow the trailer.
        case trailingBytes
        /// A change given to the encoder cannot be represented (e.g. a column newer than its row).
        case unencodable(String)
    }

    /// The kind of failure.
    package var reason: Reason
    /// The byte offset in the stream where the problem was detected, when known.
    package var offset: Int?

    /// Creates an error.
    package init(_ reason: Reason, offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }

    /// A sentence naming the problem, for logs and error messages (never contains row values).
    package var description: String {
        let place = offset.map { " at byte \($0)" } ?? ""
        switch reason {
        case .notAChangeSet: return "not a RollingSync change set (bad magic bytes)"
        case .unsupportedVersion(let version):
            return "change set format version \(version) is newer than this library supports (\(ChangeSetFormat.version))"
        case .truncated: return "change set is truncated\(place): it ends before its trailer"
        case .malformed(let what): return "change set is malformed\(place): \(what)"
        case .checksumMismatch: return "change set checksum mismatch\(place): the data was altered"
        case .countMismatch(let expected, let found):
            return "change set trailer announces \(expected) changes but \(found) were read"
        case .trailingBytes: return "change set has unexpected bytes after its trailer\(place)"
        case .unencodable(let what): return "change cannot be encoded: \(what)"
        }
    }
}
