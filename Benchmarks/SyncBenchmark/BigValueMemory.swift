import Foundation
import GRDB
import SyncCore

/// Peak memory of pushing and of applying one row holding a large BLOB, each measured in a child
/// process of its own (the benchmark runs itself with `--child`), so nothing else in the process
/// raises the peak: the child reports its `VmHWM` when it is done.
struct BigValueMemory {
    var valueBytes: Int
    var pushPeakBytes: Int
    var applyPeakBytes: Int
    /// The child's resident size after opening the database, before the measured work.
    var pushBaselineBytes: Int
    var applyBaselineBytes: Int
}

private let schema = "CREATE TABLE photo (id TEXT PRIMARY KEY NOT NULL, caption TEXT, data BLOB)"

func measureBigValue(bytes: Int, in directory: URL) throws -> BigValueMemory {
    let source = directory.appendingPathComponent("big-source.sqlite")
    let destination = directory.appendingPathComponent("big-destination.sqlite")
    let set = directory.appendingPathComponent("big.syncchg")
    for url in [source, destination] {
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in try db.execute(sql: schema) }
        try LocalStore(writer: database).register(table: "photo")
        try database.close()
    }
    // The application writes the row (here the sqlite3 tool, so its memory is not the child's).
    let insert = Process()
    insert.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    insert.arguments = [source.path, "INSERT INTO photo VALUES ('big', 'a large photo', randomblob(\(bytes)))"]
    try insert.run()
    insert.waitUntilExit()
    precondition(insert.terminationStatus == 0, "sqlite3 could not write the large row")
    let push = try runChild(["push", source.path, set.path])
    let apply = try runChild(["apply", destination.path, set.path])
    for url in [source, destination, set] {
        try? FileManager.default.removeItem(at: url)
    }
    return BigValueMemory(
        valueBytes: bytes, pushPeakBytes: push.peak, applyPeakBytes: apply.peak,
        pushBaselineBytes: push.baseline, applyBaselineBytes: apply.baseline
    )
}

/// Runs this benchmark as `--child ARGUMENTS…` and reads the `baseline PEAK` line it prints.
private func runChild(_ arguments: [String]) throws -> (baseline: Int, peak: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
    process.arguments = ["--child"] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let numbers = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    guard process.terminationStatus == 0, numbers.count == 2 else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the \(arguments[0]) child failed"])
    }
    return (numbers[0], numbers[1])
}

/// The child's side: `push DATABASE SET` writes the pending change set as a sync does (then
/// compresses it, format 2); `apply DATABASE SET` expands and applies it as a sync does. Prints the
/// resident size before the work and the peak after it, in bytes.
func runBigValueChild(_ arguments: [String]) throws {
    precondition(arguments.count == 3, "usage: --child push|apply DATABASE SET")
    let database = try DatabaseQueue(path: arguments[1])
    let store = try LocalStore(writer: database)
    let set = URL(fileURLWithPath: arguments[2])
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let baseline = try residentBytes("VmRSS")
    switch arguments[0] {
    case "push":
        guard let pending = try store.writePendingChangeSet(to: set, setID: "big") else { fatalError("nothing pending") }
        let compressed = set.appendingPathExtension("compressed")
        if try ChangeSetCompression.compress(set, to: compressed) {
            try FileManager.default.removeItem(at: set)
            try FileManager.default.moveItem(at: compressed, to: set)
        }
        try store.markPushed(pending)
    case "apply":
        try ChangeSetCompression.expandIfCompressed(set)
        _ = try store.applyChangeSet(at: set)
        let length = try database.read { db in try Int.fetchOne(db, sql: "SELECT length(data) FROM photo") }
        precondition(length ?? 0 > 0, "the large row was not applied")
    default:
        fatalError("unknown child \(arguments[0])")
    }
    print(baseline, try residentBytes("VmHWM"))
}

private func residentBytes(_ field: String) throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("\(field):") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}
