import Foundation

/// The file name of a change set in `SyncChanges/<client>/`: `<clock>-<id>.syncchg`.
///
/// `<clock>` is the set's newest hybrid-logical-clock timestamp as 16 lower-case hex digits and
/// `<id>` a unique identifier, so a single listing orders every client's sets without a download
/// and never depends on server modification times. Names that do not follow the pattern (files
/// left by people or other tools) are ignored by ``init(fileName:)`` returning `nil`.
package struct ChangeSetName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The file-name extension of change sets.
    package static let fileExtension = "syncchg"

    /// The newest change's clock in the set.
    package let clock: HLCTimestamp
    /// The set's unique identifier (letters, digits and `-`).
    package let id: String

    /// Names a set.
    /// - Precondition: `id` is 1 to 64 characters from `A–Z a–z 0–9 -`.
    package init(clock: HLCTimestamp, id: String) {
        precondition(Self.isValidID(id), "a change-set id is 1 to 64 characters from A-Z a-z 0-9 and '-'")
        self.clock = clock
        self.id = id
    }

    /// Parses a listed file name; `nil` for anything that is not a change-set name.
    package init?(fileName: String) {
        let suffix = ".\(Self.fileExtension)"
        guard fileName.hasSuffix(suffix) else { return nil }
        let stem = fileName.dropLast(suffix.count)
        guard let dash = stem.firstIndex(of: "-"),
            stem.distance(from: stem.startIndex, to: dash) == 16,
            let raw = UInt64(stem[..<dash], radix: 16)
        else { return nil }
        let id = String(stem[stem.index(after: dash)...])
        guard Self.isValidID(id) else { return nil }
        self.init(clock: HLCTimestamp(rawValue: raw), id: id)
    }

    /// `<16 hex digits>-<id>.syncchg`.
    package var fileName: String {
        let hex = String(clock.rawValue, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-" + id + "." + Self.fileExtension
    }

    package var description: String { fileName }

    /// Orders by clock, then id: the order sets are applied in.
    package static func < (lhs: ChangeSetName, rhs: ChangeSetName) -> Bool {
        (lhs.clock, lhs.id) < (rhs.clock, rhs.id)
    }

    private static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
    }
}
