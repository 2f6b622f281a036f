import Foundation

/// The file name of a client's last-sync marker in `RecentSyncs/`: `<client>@<time>.recentsync`.
///
/// `<time>` is the UTC time of the sync as `yyyyMMdd'T'HHmmss.SSS'Z'`, written by the client
/// itself (never the server's modification time). Each client keeps exactly one marker: a sync
/// writes its new marker, then deletes the previous one, so listing `RecentSyncs/` once tells when
/// every client last synced. `@` cannot occur in a ``SyncIdentifier``, which keeps the name
/// unambiguous. Names that do not follow the pattern are ignored by ``init(fileName:)``.
public struct RecentSyncName: Hashable, Sendable, CustomStringConvertible {
    /// The file-name extension of last-sync markers.
    public static let fileExtension = "recentsync"

    /// The client that synced.
    public let clientID: SyncIdentifier
    /// When it synced, in whole milliseconds since 1970-01-01 UTC (kept as an integer so a name
    /// parsed and formatted again is exactly the same name).
    public let millisecondsSince1970: Int64

    /// When it synced, to the millisecond.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(millisecondsSince1970) / 1000) }

    /// Names the marker of `clientID` syncing at `date` (rounded down to the millisecond).
    public init(clientID: SyncIdentifier, date: Date) {
        self.clientID = clientID
        millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Parses a listed file name; `nil` for anything that is not a last-sync marker.
    public init?(fileName: String) {
        let suffix = ".\(Self.fileExtension)"
        guard fileName.hasSuffix(suffix), let at = fileName.lastIndex(of: "@") else { return nil }
        let stem = fileName.dropLast(suffix.count)
        guard let client = try? SyncIdentifier(String(stem[..<at])),
            let milliseconds = Self.parse(String(stem[stem.index(after: at)...]))
        else { return nil }
        self.clientID = client
        millisecondsSince1970 = milliseconds
    }

    /// `<client>@<yyyyMMddTHHmmss.SSSZ>.recentsync`.
    public var fileName: String {
        "\(clientID.rawValue)@\(Self.format(millisecondsSince1970)).\(Self.fileExtension)"
    }

    public var description: String { fileName }

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
