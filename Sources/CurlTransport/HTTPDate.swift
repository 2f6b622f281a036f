import Foundation

/// Parses the date formats HTTP and WebDAV servers send in `getlastmodified`: RFC 1123
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, the standard), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and asctime (`Sun Nov  6 08:49:37 1994`).
///
/// Written by hand rather than with `DateFormatter`, which is neither cheap to create nor
/// `Sendable`, and a listing of thousands of files parses thousands of dates.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date in `text`, or `nil` if it is in none of the three formats or names a zone other
    /// than GMT/UTC.
    package static func parse(_ text: String) -> Date? {
        let tokens = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        var numbers: [Int] = []
        var month: Int?
        var monthBeforeDay = false
        for token in tokens {
            if let value = Int(token) {
                numbers.append(value)
            } else if let index = months.firstIndex(of: token.lowercased()) {
                month = index + 1
                monthBeforeDay = numbers.isEmpty
            } else if month != nil, !["gmt", "utc", "ut", "z"].contains(token.lowercased()) {
                return nil
            }
        }
        guard let month, numbers.count == 5 else { return nil }
        let (day, year, hour, minute, second) =
            monthBeforeDay
            ? (numbers[0], numbers[4], numbers[1], numbers[2], numbers[3])
            : (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4])
        let fullYear = year < 100 ? (year < 70 ? 2000 + year : 1900 + year) : year
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: fullYear, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
