import Foundation
import GRDB
import SyncCore

/// The size and CPU cost of compressing one change set.
struct CompressionResult {
    var originalBytes: Int
    var zlibBytes: Int?
    var zlibSeconds: Double
    var expandSeconds: Double
    /// The `zstd` command-line tool (level 3) on the same file, for comparison, when installed.
    var zstdBytes: Int?
    var zstdSeconds: Double?
}

/// A change set of `rows` inserted rows of five short text and number columns.
func writeRowsSet(_ rows: Int, to url: URL) throws {
    let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: "rows", databaseID: "benchmark"))
    let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000)
    for row in 0..<rows {
        let rowClock = HLCTimestamp(rawValue: clock.rawValue + UInt64(row))
        try writer.write(RowChange(kind: .insert, table: "note", key: UUID().uuidString.databaseValue, clock: rowClock, columns: [
            .init(name: "title", value: "Note number \(row)".databaseValue, clock: rowClock),
            .init(name: "body", value: "Remember to buy \(row % 17) apples".databaseValue, clock: rowClock),
            .init(name: "folder", value: "folder-\(row % 10)".databaseValue, clock: rowClock),
            .init(name: "position", value: row.databaseValue, clock: rowClock),
            .init(name: "score", value: (Double(row) / 7).databaseValue, clock: rowClock),
        ]))
    }
    _ = try writer.finish()
}

/// A change set of `count` rows each holding `size` random bytes.
func writeRandomBlobsSet(_ count: Int, size: Int, to url: URL) throws {
    let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: "blobs", databaseID: "benchmark"))
    let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000)
    var generator = SystemRandomNumberGenerator()
    for row in 0..<count {
        var words = [UInt64](repeating: 0, count: (size + 7) / 8)
        for index in words.indices {
            words[index] = generator.next()
        }
        let blob = words.withUnsafeBytes { Data($0.prefix(size)) }
        try writer.write(RowChange(kind: .insert, table: "photo", key: "photo-\(row)".databaseValue, clock: clock, columns: [
            .init(name: "data", value: blob.databaseValue, clock: clock)
        ]))
    }
    _ = try writer.finish()
}

func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.intValue ?? 0
}

/// Compresses `set` as a push does, expands it as a download does, and runs `zstd -3` on it.
func measureCompression(of set: URL, in directory: URL) throws -> CompressionResult {
    let compressed = directory.appendingPathComponent("compressed-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: compressed) }
    var smaller = false
    let zlibSeconds = try cpuSeconds { smaller = try ChangeSetCompression.compress(set, to: compressed) }
    var expandSeconds = 0.0
    if smaller {
        expandSeconds = try cpuSeconds { try ChangeSetCompression.expandIfCompressed(compressed) }
        precondition(fileSize(compressed) == fileSize(set), "the expanded set differs in size")
    }
    var result = CompressionResult(
        originalBytes: fileSize(set), zlibBytes: nil, zlibSeconds: zlibSeconds, expandSeconds: expandSeconds
    )
    if smaller {
        // Measured before expanding: compress again for the size (the expansion replaced the file).
        _ = try ChangeSetCompression.compress(set, to: compressed)
        result.zlibBytes = fileSize(compressed)
    }
    let zstdOutput = directory.appendingPathComponent("zstd-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: zstdOutput) }
    if let seconds = try? childCPUSeconds("/usr/bin/zstd", ["-q", "-3", "-f", set.path, "-o", zstdOutput.path]) {
        result.zstdBytes = fileSize(zstdOutput)
        result.zstdSeconds = seconds
    }
    return result
}

/// User and system CPU seconds of this process spent in `body`.
func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
    let start = processCPUTime(RUSAGE_SELF.rawValue)
    try body()
    return processCPUTime(RUSAGE_SELF.rawValue) - start
}

/// Runs a program to its end and returns the CPU seconds it used; throws if it cannot run or fails.
func childCPUSeconds(_ program: String, _ arguments: [String]) throws -> Double {
    guard FileManager.default.isExecutableFile(atPath: program) else { throw CocoaError(.fileNoSuchFile) }
    let start = processCPUTime(RUSAGE_CHILDREN.rawValue)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
    return processCPUTime(RUSAGE_CHILDREN.rawValue) - start
}

func processCPUTime(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
