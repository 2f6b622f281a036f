/// The name of a vacuum marker in `SyncChanges/<client>/`: `<change-set stem>.vacuumed`.
///
/// A client that vacuums its own change sets first writes an empty marker named after the newest
/// set it removes; every older set of that client is gone too. Another client that has not applied
/// the named set has missed history for good and must re-bootstrap from a whole store (keeping its
/// unpushed changes). Sync listings see the marker for free: it sits beside the change sets.
package struct VacuumMarkerName: Hashable, Sendable, CustomStringConvertible {
    /// The extension of vacuum markers.
    package static let fileExtension = "vacuumed"

    /// The newest change set removed by the vacuum.
    package let newestRemoved: ChangeSetName

    /// The marker for a vacuum that removed `newestRemoved` and every older set.
    package init(newestRemoved: ChangeSetName) {
        self.newestRemoved = newestRemoved
    }

    /// Parses a listed file name; `nil` for anything that is not a vacuum marker.
    package init?(fileName: String) {
        let suffix = ".\(Self.fileExtension)"
        guard fileName.hasSuffix(suffix),
            let name = ChangeSetName(fileName: fileName.dropLast(suffix.count) + ".\(ChangeSetName.fileExtension)")
        else { return nil }
        newestRemoved = name
    }

    /// `<16 hex digits>-<id>.vacuumed`.
    package var fileName: String {
        String(newestRemoved.fileName.dropLast(ChangeSetName.fileExtension.count)) + Self.fileExtension
    }

    package var description: String { fileName }
}
