import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command's output goes: human lines on standard output, or with `--json` one JSON object
/// per result; progress and errors on standard error.
struct Console: Sendable {
    /// True with `--json`.
    var json: Bool

    /// True if standard error is a terminal (progress bars redraw in place there).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Prints `line` on standard output unless in JSON mode.
    func say(_ line: String) {
        guard !json else { return }
        print(line)
    }

    /// Prints a result: its JSON encoding (one line) in JSON mode, else its human lines.
    func emit<Result: CommandResult>(_ result: Result) throws {
        if json {
            print(try Self.jsonLine(result))
        } else {
            result.humanLines.forEach { print($0) }
        }
    }

    /// `value` encoded as one line of JSON with sorted keys.
    static func jsonLine(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Writes `text` to standard error.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// The result of a command: printed as JSON with `--json`, else as lines for people.
protocol CommandResult: Encodable {
    /// The result for people.
    var humanLines: [String] { get }
}
