import Foundation
import Testing

/// The process's peak resident set size (`VmHWM` in /proc/self/status), which Linux lets a
/// process reset by writing 5 to /proc/self/clear_refs.
enum PeakMemory {
    static func resetAndRead() throws -> Int {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return try read()
    }

    static func read() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes * 1024
    }
}
