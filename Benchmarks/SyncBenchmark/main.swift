// SyncBenchmark: what a sync costs a user, measured in one run (rows of issue 17's table).
//
//   Scripts/benchmark.sh SyncBenchmark     (starts the real SFTP and WebDAV test servers)
//
// 1. Requests of a sync with nothing new, with 2, 10 and 30 clients, on the in-memory store and
//    the real servers, in remote format 1 (before) and 2 (now): store calls, the protocol
//    requests the server sees (HTTP requests, SFTP operations) and the calls that write.
//    Target (issue 31), format 2: one listing (1 PROPFIND, 1 SFTP readdir sequence,
//    1 ListObjectsV2) and no write.
// 2. Requests of a sync applying one new set of one client among 30. Target: the listing, the
//    client's directory and the set downloaded; no write.
// 3. Size of a change set of 100,000 inserted rows (5 short text and number columns), as it is and
//    compressed (zlib, what format 2 stores; the zstd tool for comparison), with CPU seconds; and
//    of a set of random blobs (never stored larger). Target ≥ 3× smaller.
// 4. Peak memory pushing and applying one row holding a 200 MB blob, each in a child process.
//    Target ≤ 1.25 × the value + 64 MB.
// Then it runs SyncCoreBenchmark (apply and capture costs, rows 5 and 6) when it is built, and:
// 7. Propagation between two clients each running AutomaticSync with the default configuration
//    (as two `rollsync watch` processes), on a folder and on the SFTP, WebDAV and S3 test servers:
//    median and worst seconds from a write on one to its arrival on the other while both are at
//    work (targets: folder ≤ 3 s median, remote stores ≤ 10 s), and the listings an idle client
//    makes in an hour and a day with the default polling curve (target ≤ 2,000 a day).
//    `SyncBenchmark --propagation` runs this section alone, `SyncBenchmark --requests` sections 1–2.
// 8. Many clients on one document (issue 32): 10, 100 and 1,000 clients on the in-memory store with
//    1 ms a call, 10 and 100 on Ceph RGW: requests, writes and bytes of a sync with nothing new, of
//    one applying a set, of a new client's bootstrap, and of a vacuum removing 10 sets. Targets: a
//    sync with nothing new costs the same requests whatever the clients, its bytes grow at most
//    linearly (bytes per client given), a vacuum's requests follow what it removes.
//    `SyncBenchmark --scale [NAME]` runs this section alone (only the stores whose name contains
//    NAME, such as `RGW`, when given).
// 9. The rollsync binary and sqlite3 as separate processes on 1,000,000 rows (issue 31), keyed by
//    a TEXT UUID, then by an INTEGER PRIMARY KEY (rows named by global identities): inserts
//    without capture, with a bare one-row-append trigger (capture's floor) and with capture, the first push, the apply, a bootstrap through push-store and
//    pull-store beside its floor (a file copy and an integrity check), with peak memory,
//    pull-store on a client that holds the rows already (the store installed in place), and the
//    size of RollingSync's tables beside the synced table's on both clients and beside their floor
//    (one copy of each row's name: its key, or its global identity).
//    `SyncBenchmark --cli [ROWS]` runs this section alone.
import Foundation
import SyncCore

let arguments = ProcessInfo.processInfo.arguments
if arguments.count > 1, arguments[1] == "--child" {
    try runBigValueChild(Array(arguments.dropFirst(2)))
    exit(0)
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// Section 7 (see the top of this file).
func printPropagation() async throws {
    let rounds = 10
    print("7. Propagation between two clients running AutomaticSync with the default configuration, \(rounds) edits each "
        + "a few seconds apart (targets: folder ≤ 3 s median, remote stores ≤ 10 s)")
    for backend in propagationBackends(in: directory) {
        let samples = try await measurePropagation(on: backend, rounds: rounds, in: directory).sorted()
        let median = (samples[(samples.count - 1) / 2] + samples[samples.count / 2]) / 2
        print("   \(backend.name.padding(toLength: 16, withPad: " ", startingAt: 0)) median \(seconds(median)), worst \(seconds(samples.last ?? 0))")
    }
    let hour = idleChecks(in: 1), day = idleChecks(in: 24)
    print("   an idle client (default curve 3 s doubling to 60 s): \(hour) listings in its first hour, \(day) in a day (target ≤ 2,000), "
        + "one request each on every backend")
}

if arguments.dropFirst().contains("--propagation") {
    try await printPropagation()
    exit(0)
}

/// Section 8 (see the top of this file), on the stores whose name contains `only` (all if `nil`).
func printManyClients(only: String? = nil) async throws {
    let sets = 10
    print("8. Many clients on one document: requests/writes and bytes received (S3: response bodies; memory: files downloaded)")
    print("   (targets: nothing new costs the same requests at any count, bytes at most linear; vacuum's requests follow what it removes)")
    for backend in try manyClientsBackends(latency: .milliseconds(1)) where only.map(backend.name.contains) ?? true {
        for clients in backend.counts {
            let costs = try await measureManyClients(on: try backend.makeStore(), clients: clients, sets: sets, in: directory)
            let perClient = costs.nothingNew.bytes / clients
            print("   \(backend.name), \(clients) clients: nothing new \(costs.nothingNew.cell) (\(perClient) B a client, "
                + String(format: "%.0f ms", costs.nothingNew.seconds * 1000) + "); one new set \(costs.oneNewSet.cell); "
                + "bootstrap (\(costs.bootstrapSets) sets) \(costs.bootstrap.cell); vacuum \(costs.vacuum.cell), \(costs.vacuumRemoved) sets removed"
                + (costs.vacuumHold.map { " (held: \($0))" } ?? ""))
            fflush(nil)  // a line per measurement, as it ends
        }
    }
}

/// Section 9 (see the top of this file) on `rows` rows, for each kind of key.
func printCommandLineRun(rows: Int) throws {
    let rollsync = URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().appendingPathComponent("rollsync")
    guard FileManager.default.isExecutableFile(atPath: rollsync.path) else {
        print("9. The rollsync binary on \(rows) rows: build it in release mode (Scripts/benchmark.sh does)")
        return
    }
    for key in CommandLineRunKey.allCases {
        try printCommandLineRun(rows: rows, key: key, rollsync: rollsync)
        fflush(nil)
    }
}

/// Section 9 for one kind of key.
func printCommandLineRun(rows: Int, key: CommandLineRunKey, rollsync: URL) throws {
    let costs = try measureCommandLineRun(rows: rows, key: key, rollsync: rollsync, in: directory)
    let floor = costs.plainInsert.seconds
    func line(_ name: String, _ cost: ChildCost, rowsPerSecond: Bool = false) -> String {
        "   \(name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(seconds(cost.seconds)) (CPU \(seconds(cost.cpuSeconds))), "
            + "\(ratio(cost.seconds / floor)) the inserts, peak \(megabytes(cost.peakBytes))"
            + (rowsPerSecond ? String(format: ", %.0fk rows/s", Double(costs.rows) / cost.seconds / 1000) : "")
    }
    func share(_ metadata: Int, of data: Int) -> String { String(format: "%.0f %%", Double(metadata) / Double(data) * 100) }
    print("9. The rollsync binary on \(costs.rows) rows of 6 short columns, \(key.rawValue) (sqlite3 and rollsync as separate processes, a folder remote;")
    print("   wall seconds; targets: first push ≤ 1.5× the inserts, apply ≥ 150k rows/s, bootstrap ≥ 250k rows/s in ≤ 64 MB, metadata ≤ 25 %)")
    print(line("sqlite3 inserts, no sync set up", costs.plainInsert))
    print(line("sqlite3 inserts, bare log trigger", costs.bareTriggerInsert))
    print(line("sqlite3 inserts, captured", costs.capturedInsert))
    print(line("first push (rollsync sync)", costs.firstPush, rowsPerSecond: true))
    print(line("apply on another client (sync)", costs.apply, rowsPerSecond: true))
    print(line("push-store", costs.pushStore, rowsPerSecond: true))
    print(line("pull-store on a new client", costs.pullStore, rowsPerSecond: true))
    let bootstrap = ChildCost(
        seconds: costs.pushStore.seconds + costs.pullStore.seconds, cpuSeconds: costs.pushStore.cpuSeconds + costs.pullStore.cpuSeconds,
        peakBytes: max(costs.pushStore.peakBytes, costs.pullStore.peakBytes)
    )
    print(line("bootstrap (push-store + pull-store)", bootstrap, rowsPerSecond: true))
    let physical = ChildCost(
        seconds: costs.fileCopy.seconds + costs.integrityCheck.seconds, cpuSeconds: costs.fileCopy.cpuSeconds + costs.integrityCheck.cpuSeconds,
        peakBytes: max(costs.fileCopy.peakBytes, costs.integrityCheck.peakBytes)
    )
    print(line("its floor: cp + integrity_check", physical, rowsPerSecond: true))
    print(line("pull-store on a client with the rows", costs.pullStoreInPlace, rowsPerSecond: true))
    print("   the store pull-store downloads: \(megabytes(costs.uploadedStore)), \(share(costs.uploadedStore, of: costs.databaseFile)) of the database file "
        + "(\(megabytes(costs.databaseFile)))")
    print("   RollingSync's tables: \(share(costs.pusherMetadata, of: costs.pusherData)) of the synced table's size on the pusher "
        + "(\(megabytes(costs.pusherMetadata)) beside \(megabytes(costs.pusherData))), "
        + "\(share(costs.receiverMetadata, of: costs.receiverData)) on the receiver (\(megabytes(costs.receiverMetadata)))")
    print("   their floor: one copy of each row's \(key == .text ? "key" : "global identity") \(share(costs.keyCopy, of: costs.pusherData)) (\(megabytes(costs.keyCopy)))")
}

if let flag = arguments.firstIndex(of: "--cli") {
    try printCommandLineRun(rows: arguments.indices.contains(flag + 1) ? Int(arguments[flag + 1]) ?? 1_000_000 : 1_000_000)
    exit(0)
}

if let flag = arguments.firstIndex(of: "--scale") {
    try await printManyClients(only: arguments.indices.contains(flag + 1) ? arguments[flag + 1] : nil)
    exit(0)
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

print("SyncBenchmark")
print("")
let requestsOnly = arguments.dropFirst().contains("--requests")
print("1. Requests of a sync with nothing new (store calls / protocol requests / writes; target in format 2: 1/1/0, one listing)")
print("2. Requests of a sync applying one new set of one client (target: 2 listings + 1 download, no write)")
var oneNewSetLines: [String] = []
for backend in BenchmarkBackend.available() {
    var line = "   \(backend.name.padding(toLength: 16, withPad: " ", startingAt: 0))"
    for clients in [2, 10, 30] {
        var cells: [String] = []
        for format in [1, 2] {
            let costs = try await measureSyncCosts(on: backend, clients: clients, format: format, in: directory)
            cells.append("f\(format) \(costs.nothingNew.cell)")
            if clients == 30 {
                oneNewSetLines.append(
                    "   \(backend.name.padding(toLength: 16, withPad: " ", startingAt: 0)) 30 clients, format \(format): "
                        + "\(costs.oneNewSet.storeCalls) store calls, \(costs.oneNewSet.requests) requests, \(costs.oneNewSet.writeCalls) writes"
                )
            }
        }
        line += "  \(clients) clients: \(cells.joined(separator: ", "))"
    }
    print(line)
}
for line in oneNewSetLines {
    print(line)
}
print("")
if requestsOnly { exit(0) }

print("3. Change-set size (target: rows ≥ 3× smaller; random bytes never larger)")
let rowsSet = directory.appendingPathComponent("rows.syncchg")
try writeRowsSet(100_000, to: rowsSet)
let blobsSet = directory.appendingPathComponent("blobs.syncchg")
try writeRandomBlobsSet(20, size: 1_000_000, to: blobsSet)
for (name, set) in [("100,000 rows", rowsSet), ("20 random 1 MB blobs", blobsSet)] {
    let result = try measureCompression(of: set, in: directory)
    var line = "   \(name): \(megabytes(result.originalBytes)) as it is; "
    if let zlib = result.zlibBytes {
        line += "zlib \(megabytes(zlib)) (\(ratio(Double(result.originalBytes) / Double(zlib))) smaller, "
            + "\(seconds(result.zlibSeconds)) to compress, \(seconds(result.expandSeconds)) to expand)"
    } else {
        line += "zlib saves nothing, stored as it is (\(seconds(result.zlibSeconds)) spent trying)"
    }
    if let zstd = result.zstdBytes, let zstdSeconds = result.zstdSeconds {
        line += "; zstd -3 \(megabytes(zstd)) (\(ratio(Double(result.originalBytes) / Double(zstd))), \(seconds(zstdSeconds)))"
    }
    print(line)
}
print("")

print("4. Peak memory with one 200 MB BLOB (target ≤ 1.25 × value + 64 MB = \(megabytes(250_000_000 + 64_000_000)))")
let big = try measureBigValue(bytes: 200_000_000, in: directory)
print("   push:  peak \(megabytes(big.pushPeakBytes)) (\(ratio(Double(big.pushPeakBytes) / Double(big.valueBytes))) the value; \(megabytes(big.pushBaselineBytes)) before)")
print("   apply: peak \(megabytes(big.applyPeakBytes)) (\(ratio(Double(big.applyPeakBytes) / Double(big.valueBytes))) the value; \(megabytes(big.applyBaselineBytes)) before)")
print("")

let siblingBenchmark = URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().appendingPathComponent("SyncCoreBenchmark")
if FileManager.default.isExecutableFile(atPath: siblingBenchmark.path) {
    print("5–6. Apply and capture costs (SyncCoreBenchmark):")
    fflush(nil)  // before the child writes to the same output
    let process = Process()
    process.executableURL = siblingBenchmark
    try process.run()
    process.waitUntilExit()
} else {
    print("5–6. Apply and capture costs: build and run SyncCoreBenchmark (Scripts/benchmark.sh builds both)")
}
print("")
try await printPropagation()
print("")
try await printManyClients()
print("")
try printCommandLineRun(rows: 1_000_000)
