import ArgumentParser
import Foundation

/// A moment given on the command line: ISO 8601 in UTC, as `status` and `log` print it
/// (`2026-11-24T06:00:00Z`, with or without milliseconds).
struct Moment: ExpressibleByArgument, Sendable {
    var date: Date

    init?(argument: String) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: argument) {
            self.date = date
            return
        }
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: argument) else { return nil }
        self.date = date
    }

    static var defaultValueDescription: String { "an ISO 8601 time such as 2026-11-24T06:00:00Z" }
}

extension Date {
    /// The time as `log`, `verify` and `restore` print it and `--at`/`--since` read it: ISO 8601
    /// in UTC with milliseconds, the precision of change-set clocks.
    var historyTimestamp: String { formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
}

/// `--keep-days N`: keep history on purpose, for point-in-time restore.
struct KeepHistoryOptions: ParsableArguments {
    @Option(
        name: .customLong("keep-days"),
        help: ArgumentHelp(
            "Keep this many days of history for `rollsync restore` (use the same value for vacuum and push-store on every client).",
            valueName: "days"
        )
    )
    var keepDays: Double?

    /// The period in seconds, `nil` when not asked.
    var period: TimeInterval? { keepDays.map { $0 * 86_400 } }

    func validate() throws {
        if let keepDays, !(keepDays >= 0 && keepDays.isFinite) {
            throw ValidationError("--keep-days takes a number of days, 0 or more")
        }
    }
}
