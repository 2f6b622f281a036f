import Foundation
import SyncCore

/// The lines `rollsync watch` prints on standard output, one per event: for people a line starting
/// with the time (ISO 8601, UTC), with `--json` one JSON object with `"command": "watch"` and an
/// `event` (`started`, `synced`, `failed`, `recovered`, `stopped`). Each line is written at once
/// (no buffering), so a pipe or the journal sees it when it happens.
enum WatchLine {
    /// Why a sync ran.
    enum Trigger: String, Codable, Sendable {
        /// The sync when `watch` starts.
        case start
        /// Writes to the database (by any process) since the last sync, after the delay.
        case localChanges
        /// A remote check found another client's new change set.
        case remoteAnnouncement
        /// A remote check found unpushed local changes, or retried a set announced before its upload.
        case remoteCheck

        /// The trigger as people read it.
        var text: String {
            switch self {
            case .start: "start"
            case .localChanges: "local changes"
            case .remoteAnnouncement: "another client's changes"
            case .remoteCheck: "remote check"
            }
        }

        /// The line's name for AutomaticSync's trigger (a trigger added later reads as a remote check).
        init(_ trigger: AutomaticSyncEvent.Trigger) {
            switch trigger {
            case .start: self = .start
            case .localChanges: self = .localChanges
            case .remoteAnnouncement: self = .remoteAnnouncement
            case .poll: self = .remoteCheck
            @unknown default: self = .remoteCheck
            }
        }
    }

    /// Prints `line` (its JSON encoding with `json`, else its human lines) and flushes standard output.
    static func emit(_ line: some CommandResult, json: Bool) {
        let lines = json ? [(try? Console.jsonLine(line)) ?? "{}"] : line.humanLines
        FileHandle.standardOutput.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// `at` as printed at the start of a human line.
    static func time(_ at: Date) -> String {
        at.formatted(.iso8601)
    }

    /// A duration in seconds, for JSON.
    static func seconds(_ duration: Duration) -> Double {
        let components = duration.components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// A duration for people: `0.5 s`, `12 s`, `10 min`.
    static func text(_ duration: Duration) -> String {
        let value = seconds(duration)
        if value < 10 { return String(format: "%.1f s", value) }
        if value < 120 || value.truncatingRemainder(dividingBy: 60) != 0 { return "\(Int(value.rounded())) s" }
        return "\(Int(value / 60)) min"
    }

    /// `watch` started: what it watches and how often.
    struct Started: CommandResult {
        var command = "watch"
        var event = "started"
        var database: String
        var remote: String
        var delaySeconds: Double
        var intervalSeconds: Double
        var activeIntervalSeconds: Double
        var maximumBackoffSeconds: Double
        var at: Date

        var humanLines: [String] {
            [
                "\(time(at)) watching \(database) (remote \(remote)): a sync \(text(.seconds(delaySeconds))) after local changes, "
                    + "remote checks \(text(.seconds(activeIntervalSeconds))) after activity slowing to one every "
                    + "\(text(.seconds(intervalSeconds))), retries backing off up to \(text(.seconds(maximumBackoffSeconds))); "
                    + "stop with Ctrl-C or SIGTERM"
            ]
        }
    }

    /// A sync completed: the fields of `rollsync sync --json` plus the event, its trigger, and
    /// whether it ended a run of failures.
    struct Synced: CommandResult {
        var result: SyncResult
        var trigger: Trigger
        var recovered: Bool

        private enum Keys: String, CodingKey {
            case event, trigger, recovered
        }

        func encode(to encoder: any Encoder) throws {
            var result = result
            result.command = "watch"
            try result.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("synced", forKey: .event)
            try container.encode(trigger, forKey: .trigger)
            try container.encode(recovered, forKey: .recovered)
        }

        var humanLines: [String] {
            ["\(time(result.finishedAt)) sync (\(trigger.text)): \(result.summary)\(recovered ? " (the remote works again)" : "")"]
                + result.detailLines
        }
    }

    /// A sync or remote check failed; the next attempt comes after `retryInSeconds`.
    struct Failed: CommandResult {
        var command = "watch"
        var event = "failed"
        var trigger: Trigger
        /// The error, as `rollsync sync` would print it.
        var error: String
        var hint: String?
        /// The exit code `rollsync sync` would end with for this error.
        var exitCode: Int32
        var retryInSeconds: Double
        /// Failures in a row, this one included.
        var consecutiveFailures: Int
        var at: Date

        var humanLines: [String] {
            [
                "\(time(at)) sync failed (\(trigger.text)): \(error); retrying in \(text(.seconds(retryInSeconds)))"
                    + (consecutiveFailures > 1 ? " (\(consecutiveFailures) failures in a row)" : "")
            ]
        }
    }

    /// A remote check succeeded after failures and found nothing to sync.
    struct Recovered: CommandResult {
        var command = "watch"
        var event = "recovered"
        var at: Date

        var humanLines: [String] { ["\(time(at)) the remote works again; nothing to sync"] }
    }

    /// `watch` stopped (after a signal), the running sync finished.
    struct Stopped: CommandResult {
        var command = "watch"
        var event = "stopped"
        var signal: String?
        var syncs: Int
        var failures: Int
        var at: Date

        var humanLines: [String] {
            ["\(time(at)) stopped\(signal.map { " on \($0)" } ?? ""): \(syncs) syncs, \(failures) failed attempts"]
        }
    }
}
