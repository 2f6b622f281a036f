import Foundation

/// The file name of a client's last-sync marker in `RecentSyncs/`:
/// `<client>@<time>@<newest set>.recentsync` (format 2) or `<client>@<time>.recentsync` (format 1).
///
/// `<time>` is the UTC time of the sync as `yyyyMMdd'T'HHmmss.SSS'Z'`, written by the client
/// itself (never the server's modification time). `<newest set>` (format 2) is the stem
/// `<clock>-<id>` of the newest change set the client pushed, or `none`: one listing of
/// `RecentSyncs/` then tells what every client has published, and a sync lists a client's change
/// sets only when it has not applied that set (see ``NewestSet``). Each client keeps exactly one
/// marker: a sync that records itself (every push; see ``Synchronizer``) writes its new marker,
/// then deletes the previous one. `@` cannot occur in a
/// ``SyncIdentifier``, which keeps the name unambiguous. Names that do not follow the pattern are
/// ignored by ``init(fileName:)``.
package struct RecentSyncName: Hashable, Sendable, CustomStringConvertible {
    /// The file-name extension of last-sync markers.
    package static let fileExtension = "recentsync"

    /// The client that synced.
    package let clientID: SyncIdentifier
    /// When it synced, in whole milliseconds since 1970-01-01 UTC (kept as an integer so a name
    /// parsed and formatted again is exactly the same name).
    package let millisecondsSince1970: Int64
    /// What the marker says about the newest change set its client pushed.
    package let newestSet: NewestSet

    /// What a last-sync marker says about its client's change sets.
    ///
    /// A format-2 client writes its marker **before** uploading a change set, naming that set, and
    /// only ever names a set at least as new as the one it named before. So every set in the
    /// client's `SyncChanges/` directory is at most the newest set its markers name: a reader that
    /// has applied that set (and, since a client's sets are applied in order, every older one) has
    /// nothing to fetch from the client and need not list its directory. A named set may not exist
    /// (yet, or ever, if its upload failed); the reader then lists the directory and finds nothing
    /// new, which costs a listing and misses nothing.
    package enum NewestSet: Hashable, Sendable {
        /// A format-1 name, which says nothing: a reader lists the client's change sets.
        case unannounced
        /// The client has pushed no change set to this document.
        case nothingPushed
        /// The newest change set the client pushed or was about to push.
        case set(ChangeSetName)
    }

    /// When it synced, to the millisecond.
    package var date: Date { Date(timeIntervalSince1970: TimeInterval(millisecondsSince1970) / 1000) }

    /// Names the marker of `clientID` syncing at `date` (rounded down to the millisecond), saying
    /// `newestSet` about its change sets (``NewestSet/unannounced`` writes a format-1 name).
    package init(clientID: SyncIdentifier, date: Date, newestSet: NewestSet = .unannounced) {
        self.clientID = clientID
        millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        self.newestSet = newestSet
    }

    /// Parses a listed file name; `nil` for anything that is not a last-sync marker.
    package init?(fileName: String) {
        let suffix = ".\(Self.fileExtension)"
        guard fileName.hasSuffix(suffix) else { return nil }
        let parts = fileName.dropLast(suffix.count).split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            let client = try? SyncIdentifier(String(parts[0])),
            let milliseconds = Self.parse(String(parts[1]))
        else { return nil }
        if parts.count == 2 {
            newestSet = .unannounced
        } else if parts[2] == Self.noSet {
            newestSet = .nothingPushed
        } else if let set = ChangeSetName(fileName: "\(parts[2]).\(ChangeSetName.fileExtension)") {
            newestSet = .set(set)
        } else {
            return nil
        }
        self.clientID = client
        millisecondsSince1970 = milliseconds
    }

    /// `<client>@<yyyyMMddTHHmmss.SSSZ>[@<clock>-<id> | @none].recentsync`.
    package var fileName: String {
        let stem = "\(clientID.rawValue)@\(Self.format(millisecondsSince1970))"
        switch newestSet {
        case .unannounced: return "\(stem).\(Self.fileExtension)"
        case .nothingPushed: return "\(stem)@\(Self.noSet).\(Self.fileExtension)"
        case .set(let set): return "\(stem)@\(set.fileName.dropLast(ChangeSetName.fileExtension.count + 1)).\(Self.fileExtension)"
        }
    }

    /// The third part of a format-2 name whose client has pushed nothing.
    private static let noSet = "none"

    package var description: String { fileName }

    private static func format(_ milliseconds: Int64) -> String {
        let parts = Calendar.utc.dateComponents(
            [.year, .month, .day, .hour, .minute, .second],
            from: Date(timeIntervalSince1970: TimeInterval(milliseconds.floorDivided(by: 1000)))
        )
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.year, 4) + pad(parts.month, 2) + pad(parts.day, 2) + "T" + pad(parts.hour, 2)
            + pad(parts.minute, 2) + pad(parts.second, 2) + "." + pad(Int(milliseconds.floorModulo(1000)), 3) + "Z"
    }

    private static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "."),
            bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard range.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            let millisecond = number(16..<19),
            let whole = Calendar.utc.date(
                from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            )
        else { return nil }
        return Int64(whole.timeIntervalSince1970) * 1000 + Int64(millisecond)
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC, for names that carry times.
    fileprivate static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}
