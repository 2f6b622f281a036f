import Foundation

/// The process's peak resident set size (`VmHWM` in /proc/self/status), which Linux lets a
/// process reset by writing 5 to /proc/self/clear_refs. The value is process-wide: only a
/// process where nothing else runs (see ``IsolatedRoundTrip``) measures one operation with it.
public enum PeakMemory {
    /// Resets the peak to the current resident size and returns it, in bytes.
    public static func resetAndRead() throws -> Int {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return try read()
    }

    /// The peak resident size since the process started or the last reset, in bytes.
    public static func read() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else {
            throw TestSupportError("/proc/self/status has no readable VmHWM line")
        }
        return kilobytes * 1024
    }
}
