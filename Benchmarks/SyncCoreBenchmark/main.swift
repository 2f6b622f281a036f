// SyncCoreBenchmark: prints the cost of RollingSync's local half as ratios measured in one run.
//
//   swift run -c release SyncCoreBenchmark        (or Scripts/benchmark.sh SyncCoreBenchmark)
//
// 1. Capture overhead: 100k inserts then 100k updates (batches of 1,000 rows per transaction,
//    prepared statements) on a table with capture triggers versus the same table without them.
//    Target ≤ 1.3×.
// 2. Apply cost: applying change sets of those 100k inserts and 100k updates (verification pass
//    included) versus executing the same writes directly in one transaction each. Target ≤ 2×.
// 3. Encoded size per change.
// 4. Peak memory (VmHWM, reset between phases through /proc/self/clear_refs) while encoding and
//    decoding 100,000 and 1,000,000 changes: bounded if both peaks are about the same.
// 5. The schema check every sync runs first (LocalStore.refreshSchema) when nothing changed,
//    versus the smallest read transaction; and after an ALTER TABLE … ADD COLUMN on 100k rows.
//
// Timings are process CPU seconds (see processCPUTime), each the best of five rounds, alternating
// variants, to damp noise from other processes.

import Foundation
import GRDB
import SyncCore

let rowCount = 100_000
let batchSize = 1_000
let rounds = 5

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// CPU time of the whole process (all threads, user and system), in seconds: unlike wall time it
/// does not grow when other processes compete for the cores, so ratios stay comparable on a busy
/// machine. SQLite runs in-process, so its work, file system calls included, is counted.
func processCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = processCPUTime()
    try body()
    return processCPUTime() - start
}

func format(_ value: Double) -> String { String(format: "%.3f", value) }

/// Peak resident memory in KiB since the last reset, from /proc/self/status (Linux; -1 elsewhere).
func peakMemoryKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else {
        return -1
    }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

/// Resets the peak-memory counter to the current resident size (Linux ≥ 4.0).
func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

func newDatabase(_ name: String) throws -> DatabasePool {
    let pool = try DatabasePool(path: directory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path)
    try pool.write { db in
        try db.execute(sql: "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT, quantity INTEGER, price REAL, note TEXT)")
    }
    return pool
}

let keys = (0..<rowCount).map { _ in UUID().uuidString }

/// The application's workload: inserts, then updates of `updatedColumns` columns per row.
func appWrites(on pool: DatabasePool, updatedColumns: Int) throws -> (insert: Double, update: Double) {
    let insert = try seconds {
        for batch in stride(from: 0, to: rowCount, by: batchSize) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO items (id, name, quantity, price, note) VALUES (?, ?, ?, ?, ?)")
                for index in batch..<batch + batchSize {
                    try statement.execute(arguments: [keys[index], "item \(index)", index, Double(index) * 0.25, "note"])
                }
            }
        }
    }
    let update = try seconds {
        for batch in stride(from: 0, to: rowCount, by: batchSize) {
            try pool.write { db in
                let statement = updatedColumns == 1
                    ? try db.cachedStatement(sql: "UPDATE items SET quantity = ? WHERE id = ?")
                    : try db.cachedStatement(sql: "UPDATE items SET quantity = ?, name = 'renamed ' || ? WHERE id = ?")
                for index in batch..<batch + batchSize {
                    if updatedColumns == 1 {
                        try statement.execute(arguments: [index + 1, keys[index]])
                    } else {
                        try statement.execute(arguments: [index + 1, index, keys[index]])
                    }
                }
            }
        }
    }
    return (insert, update)
}

// MARK: 4 first, so that the database phases do not raise the memory baseline.

func encodeAndDecode(_ count: Int) throws -> (encodeKiB: Int, decodeKiB: Int, bytes: Int) {
    let url = directory.appendingPathComponent("memory-\(count).syncchg")
    let clock = HLCTimestamp(physicalMilliseconds: 1_763_780_000_000)
    resetPeakMemory()
    let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: "memory-\(count)", databaseID: "benchmark"))
    for index in 0..<count {
        let rowClock = HLCTimestamp(rawValue: clock.rawValue + UInt64(index))
        try writer.write(RowChange(kind: .insert, table: "items", key: "\(index)-\(keys[index % rowCount])".databaseValue, clock: rowClock, columns: [
            .init(name: "name", value: "item \(index)".databaseValue, clock: rowClock),
            .init(name: "quantity", value: index.databaseValue, clock: rowClock),
            .init(name: "price", value: (Double(index) * 0.25).databaseValue, clock: rowClock),
            .init(name: "note", value: .null, clock: rowClock),
        ]))
    }
    let summary = try writer.finish()
    let encodePeak = peakMemoryKiB()
    resetPeakMemory()
    let reader = try ChangeSetReader(contentsOf: url)
    var decoded = 0
    while try reader.next() != nil {
        decoded += 1
    }
    precondition(decoded == count && reader.summary == summary, "decoded set differs")
    let decodePeak = peakMemoryKiB()
    try FileManager.default.removeItem(at: url)
    return (encodePeak, decodePeak, summary.byteCount)
}

let small = try encodeAndDecode(100_000)
let large = try encodeAndDecode(1_000_000)

// MARK: 1. Capture overhead

var plainTimes = (insert: Double.infinity, update: Double.infinity, update2: Double.infinity)
var capturedTimes = plainTimes
for _ in 0..<rounds {
    for capture in [false, true] {
        for updatedColumns in [1, 2] {
            let pool = try newDatabase("capture")
            if capture {
                try LocalStore(writer: pool).register(table: "items")
            }
            let times = try appWrites(on: pool, updatedColumns: updatedColumns)
            var best = capture ? capturedTimes : plainTimes
            best.insert = min(best.insert, times.insert)
            if updatedColumns == 1 { best.update = min(best.update, times.update) } else { best.update2 = min(best.update2, times.update) }
            if capture { capturedTimes = best } else { plainTimes = best }
        }
    }
}

// MARK: 2. Apply cost, and 3. size per change

let source = try newDatabase("source")
let sourceStore = try LocalStore(writer: source)
try sourceStore.register(table: "items")
_ = try appWrites(on: source, updatedColumns: 0)
// appWrites logged inserts and updates together; push them as an insert set, then make an update set.
let insertSetURL = directory.appendingPathComponent("inserts.syncchg")
let insertSet = try sourceStore.writePendingChangeSet(to: insertSetURL, setID: "inserts")!
try sourceStore.markPushed(insertSet)
try source.write { db in
    let statement = try db.cachedStatement(sql: "UPDATE items SET quantity = quantity + 1000, name = 'edited ' || id WHERE id = ?")
    for key in keys {
        try statement.execute(arguments: [key])
    }
}
let updateSetURL = directory.appendingPathComponent("updates.syncchg")
let updateSet = try sourceStore.writePendingChangeSet(to: updateSetURL, setID: "updates")!

struct DirectRow { var key: String; var name: DatabaseValue; var quantity: DatabaseValue; var price: DatabaseValue; var note: DatabaseValue }
let finalRows: [DirectRow] = try source.read { db in
    try Row.fetchAll(db, sql: "SELECT id, name, quantity, price, note FROM items").map {
        DirectRow(key: $0["id"], name: $0["name"], quantity: $0["quantity"], price: $0["price"], note: $0["note"])
    }
}

var applyTimes = (insert: Double.infinity, update: Double.infinity)
/// The same applies into a database whose table has an app trigger (that never writes), so the
/// trigger guard of Docs/Conflicts.md ("Your own triggers") is installed: its own cost.
var guardedApplyTimes = applyTimes
/// The verification pass of the update set alone (part of its apply time).
var verificationTime = Double.infinity
var directTimes = applyTimes
for _ in 0..<rounds {
    let direct = try newDatabase("direct")
    let directInsert = try seconds {
        try direct.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO items (id, name, quantity, price, note) VALUES (?, ?, ?, ?, ?)")
            for (index, row) in finalRows.enumerated() {
                try statement.execute(arguments: [row.key, "item \(index)", index, Double(index) * 0.25, "note"])
            }
        }
    }
    let directUpdate = try seconds {
        try direct.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE items SET quantity = ?, name = ? WHERE id = ?")
            for row in finalRows {
                try statement.execute(arguments: [row.quantity, row.name, row.key])
            }
        }
    }
    directTimes = (min(directTimes.insert, directInsert), min(directTimes.update, directUpdate))

    let target = try newDatabase("target")
    let targetStore = try LocalStore(writer: target)
    try targetStore.register(table: "items")
    let applyInsert = try seconds { try targetStore.applyChangeSet(at: insertSetURL) }
    let applyUpdate = try seconds { try targetStore.applyChangeSet(at: updateSetURL) }
    applyTimes = (min(applyTimes.insert, applyInsert), min(applyTimes.update, applyUpdate))
    verificationTime = min(verificationTime, try seconds { _ = try ChangeSetReader.verify(fileAt: updateSetURL) })
    let converged = try target.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE name LIKE 'edited %'") }
    let echoed = try targetStore.hasPendingChanges()
    precondition(converged == rowCount && !echoed, "apply did not reproduce the source")

    let guarded = try newDatabase("guarded")
    try guarded.write { db in
        try db.execute(sql: "CREATE TRIGGER items_app_trigger AFTER UPDATE ON items WHEN new.quantity < 0 BEGIN SELECT 1; END")
    }
    let guardedStore = try LocalStore(writer: guarded)
    try guardedStore.register(table: "items")
    let guardedInsert = try seconds { try guardedStore.applyChangeSet(at: insertSetURL) }
    let guardedUpdate = try seconds { try guardedStore.applyChangeSet(at: updateSetURL) }
    guardedApplyTimes = (min(guardedApplyTimes.insert, guardedInsert), min(guardedApplyTimes.update, guardedUpdate))
}

// MARK: 5. Schema check of a sync

let schemaChecks = 10_000
_ = try sourceStore.refreshSchema()
var checkTime = Double.infinity
var readTime = Double.infinity
for _ in 0..<rounds {
    checkTime = min(checkTime, try seconds { for _ in 0..<schemaChecks { _ = try sourceStore.refreshSchema() } })
    readTime = min(readTime, try seconds { for _ in 0..<schemaChecks { _ = try source.read { try Int.fetchOne($0, sql: "SELECT 1") } } })
}
try source.write { db in
    try db.execute(sql: "ALTER TABLE items ADD COLUMN priority INTEGER DEFAULT 0")
    try db.execute(sql: "UPDATE items SET priority = 1 WHERE rowid % 10 = 0")
}
var addedColumn: [SchemaChange] = []
let addedColumnTime = try seconds { addedColumn = try sourceStore.refreshSchema() }
precondition(addedColumn == [.columnAdded(table: "items", column: "priority", publishedRows: rowCount / 10)], "schema check missed the column")

// MARK: Report

let plainTotal = plainTimes.insert + plainTimes.update
let capturedTotal = capturedTimes.insert + capturedTimes.update
print("SyncCoreBenchmark (process CPU seconds, best of \(rounds) rounds; \(rowCount) rows, \(batchSize) rows per transaction)")
print("")
print("1. Change capture overhead (target ≤ 1.3×)")
print("   inserts:                 plain \(format(plainTimes.insert)) s, captured \(format(capturedTimes.insert)) s, ratio \(format(capturedTimes.insert / plainTimes.insert))×")
print("   updates (1 column):      plain \(format(plainTimes.update)) s, captured \(format(capturedTimes.update)) s, ratio \(format(capturedTimes.update / plainTimes.update))×")
print("   updates (2 columns):     plain \(format(plainTimes.update2)) s, captured \(format(capturedTimes.update2)) s, ratio \(format(capturedTimes.update2 / plainTimes.update2))×")
print("   inserts + 1-column updates: ratio \(format(capturedTotal / plainTotal))×")
print("   inserts + 2-column updates: ratio \(format((capturedTimes.insert + capturedTimes.update2) / (plainTimes.insert + plainTimes.update2)))×")
print("")
print("2. Apply versus direct writes (target ≤ 2×; apply includes the verification pass)")
print("   \(rowCount) inserts:            direct \(format(directTimes.insert)) s, apply \(format(applyTimes.insert)) s, ratio \(format(applyTimes.insert / directTimes.insert))×")
print("   \(rowCount) 2-column updates:   direct \(format(directTimes.update)) s, apply \(format(applyTimes.update)) s, ratio \(format(applyTimes.update / directTimes.update))×")
print("   total:                          ratio \(format((applyTimes.insert + applyTimes.update) / (directTimes.insert + directTimes.update)))×")
print("   of the update apply, the verification pass: \(format(verificationTime)) s (a sync verifies while downloading and skips it)")
print("   with an app trigger on the table (the trigger guard installed), against the same apply without:")
print("     inserts \(format(guardedApplyTimes.insert)) s, ratio \(format(guardedApplyTimes.insert / applyTimes.insert))×; "
    + "2-column updates \(format(guardedApplyTimes.update)) s, ratio \(format(guardedApplyTimes.update / applyTimes.update))×")
print("")
print("3. Encoded size")
print("   insert set: \(insertSet.summary.byteCount) bytes for \(insertSet.summary.changeCount) rows (4 columns + 36-char key): \(format(Double(insertSet.summary.byteCount) / Double(insertSet.summary.changeCount))) bytes/change")
print("   update set: \(updateSet.summary.byteCount) bytes for \(updateSet.summary.changeCount) rows (2 columns): \(format(Double(updateSet.summary.byteCount) / Double(updateSet.summary.changeCount))) bytes/change")
print("")
print("4. Peak memory (VmHWM) while streaming synthetic insert changes (4 columns)")
print("   100,000 changes (\(small.bytes / 1_048_576) MiB):   encode \(small.encodeKiB / 1024) MiB, decode \(small.decodeKiB / 1024) MiB")
print("   1,000,000 changes (\(large.bytes / 1_048_576) MiB): encode \(large.encodeKiB / 1024) MiB, decode \(large.decodeKiB / 1024) MiB")
print("   growth for 10× the changes: encode \(format(Double(large.encodeKiB) / Double(small.encodeKiB)))×, decode \(format(Double(large.decodeKiB) / Double(small.decodeKiB)))×")
print("")
print("5. Schema check at the start of a sync (\(schemaChecks) calls, best of \(rounds) rounds)")
print("   nothing changed: \(format(checkTime / Double(schemaChecks) * 1e6)) µs per check; smallest read transaction \(format(readTime / Double(schemaChecks) * 1e6)) µs; ratio \(format(checkTime / readTime))×")
print("   after ADD COLUMN on \(rowCount) rows (\(rowCount / 10) written since): \(format(addedColumnTime * 1000)) ms, once")
