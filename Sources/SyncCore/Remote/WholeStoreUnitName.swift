import Foundation

/// The directory name of one whole-store unit in `WholeStore/<client>/`: `<clock>-<id>.wholestore`.
///
/// `<clock>` is the uploader's hybrid-logical-clock reading when the snapshot was taken (never
/// older than the data it holds, nor than the uploader's wall clock at that time), as 16
/// lower-case hex digits, and `<id>` a UUID, so a single listing orders every client's units
/// without a download and without server modification times. Names that do not follow the pattern
/// are ignored.
public struct WholeStoreUnitName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The extension of unit directories.
    package static let directoryExtension = "wholestore"

    /// The uploader's clock when the snapshot was taken.
    package let clock: HLCTimestamp
    /// The unit's unique identifier.
    package let id: String

    /// Names a new unit taken at `clock`.
    package init(clock: HLCTimestamp, id: String = UUID().uuidString) {
        self.clock = clock
        self.id = id
    }

    /// Parses a listed directory name; `nil` for anything that is not a unit name.
    package init?(directoryName: String) {
        guard let set = ChangeSetName(fileName: Self.changeSetFileName(directoryName)) else { return nil }
        self.init(clock: set.clock, id: set.id)
    }

    /// `<16 hex digits>-<id>.wholestore`.
    public var directoryName: String {
        String(ChangeSetName(clock: clock, id: id).fileName.dropLast(ChangeSetName.fileExtension.count))
            + Self.directoryExtension
    }

    /// When the snapshot was taken, by the uploader's clock.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(clock.physicalMilliseconds) / 1000) }

    public var description: String { directoryName }

    /// Orders by clock, then id: the last is the newest.
    public static func < (lhs: WholeStoreUnitName, rhs: WholeStoreUnitName) -> Bool {
        (lhs.clock, lhs.id) < (rhs.clock, rhs.id)
    }

    /// Units share the change-set name syntax; only the extension differs.
    private static func changeSetFileName(_ directoryName: String) -> String {
        let suffix = ".\(directoryExtension)"
        guard directoryName.hasSuffix(suffix) else { return "" }
        return directoryName.dropLast(suffix.count) + ".\(ChangeSetName.fileExtension)"
    }
}
