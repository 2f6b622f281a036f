// SyncCoreBenchmark: prints the cost of RollingSync's local half as ratios measured in one run.
//
//   swift run -c release SyncCoreBenchmark        (or Scripts/benchmark.sh SyncCoreBenchmark)
//
// 1. Capture overhead: 100k inserts then 100k updates of one column, of two, or of the whole row
//    with one column changed, as ORMs write (batches of 1,000 rows per transaction, prepared
//    statements) on a table with capture triggers versus the same table without them, and beside
//    them capture's floor (the same table with one trigger per statement kind appending one bare
//    row a write to a log) and RollingSync's capture before the log's column sets (schema v7): one
//    entry per changed cell, from one trigger per column. Targets (issue 31): inserts ≤ 1.25×,
//    updates ≤ 1.5× whatever the number of columns changed.
// 2. Apply cost: applying change sets of those 100k inserts and 100k updates (verification pass
//    included) versus executing the same writes directly in one transaction each. Target ≤ 2×.
//    Both run on a table keyed by one TEXT column (a UUID) and on one keyed by a composite key of
//    two TEXT columns (a join table's), and on one keyed by an INTEGER PRIMARY KEY (rows named by
//    global identities); the composite and integer figures are also printed relative to the TEXT
//    ones (goals: no worse than 1.1× and 1.25×).
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

/// The key of the benchmark's table.
enum KeyShape: String, CaseIterable {
    /// One TEXT column holding a UUID.
    case text = "TEXT key"
    /// Two TEXT columns (the two halves of a UUID), as a join table's `PRIMARY KEY (a, b)`.
    case composite = "composite key"
    /// An `INTEGER PRIMARY KEY` (the rowid), whose rows RollingSync names by global identities.
    case integer = "integer key"

    var keyColumns: [String] { self == .composite ? ["id", "part"] : ["id"] }

    var createTable: String {
        switch self {
        case .text: "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT, quantity INTEGER, price REAL, note TEXT)"
        case .composite:
            "CREATE TABLE items (id TEXT NOT NULL, part TEXT NOT NULL, name TEXT, quantity INTEGER, price REAL, note TEXT, PRIMARY KEY (id, part))"
        case .integer: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, quantity INTEGER, price REAL, note TEXT)"
        }
    }

    /// `WHERE` condition selecting one row, its key values bound last.
    var matchesKey: String { keyColumns.map { "\($0) = ?" }.joined(separator: " AND ") }

    /// Row `index`'s key values.
    func key(_ index: Int) -> [DatabaseValue] {
        switch self {
        case .text: [keys[index].databaseValue]
        case .composite: [String(keys[index].prefix(18)).databaseValue, String(keys[index].suffix(18)).databaseValue]
        case .integer: [(index + 1).databaseValue]
        }
    }

    /// An `INSERT` of a whole row, key values first.
    var insert: String {
        let columns = keyColumns + ["name", "quantity", "price", "note"]
        return "INSERT INTO items (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    }
}

func newDatabase(_ name: String, _ shape: KeyShape) throws -> DatabasePool {
    let pool = try DatabasePool(path: directory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path)
    try pool.write { db in try db.execute(sql: shape.createTable) }
    return pool
}

let keys = (0..<rowCount).map { _ in UUID().uuidString }

/// The updates of the application's workload.
enum UpdateKind: CaseIterable {
    /// `SET quantity = ?`: one column, changed.
    case oneColumn
    /// `SET quantity = ?, name = ?`: two columns, both changed.
    case twoColumns
    /// `SET name = ?, quantity = ?, price = ?, note = ?`, only `quantity` changed: the whole row
    /// written back, as ORMs save a record (Room's `@Update`, Django's `save()`).
    case wholeRow

    func statement(_ shape: KeyShape) -> String {
        switch self {
        case .oneColumn: "UPDATE items SET quantity = ? WHERE \(shape.matchesKey)"
        case .twoColumns: "UPDATE items SET quantity = ?, name = 'renamed ' || ? WHERE \(shape.matchesKey)"
        case .wholeRow: "UPDATE items SET name = ?, quantity = ?, price = ?, note = ? WHERE \(shape.matchesKey)"
        }
    }

    /// The values of row `index`'s update, before its key values.
    func values(_ index: Int) -> [DatabaseValue] {
        switch self {
        case .oneColumn: [(index + 1).databaseValue]
        case .twoColumns: [(index + 1).databaseValue, index.databaseValue]
        case .wholeRow: ["item \(index)".databaseValue, (index + 1).databaseValue, (Double(index) * 0.25).databaseValue, "note".databaseValue]
        }
    }
}

/// The application's workload: inserts, then one update of each row.
func appWrites(on pool: DatabasePool, _ shape: KeyShape, updates: UpdateKind) throws -> (insert: Double, update: Double) {
    let insert = try seconds {
        for batch in stride(from: 0, to: rowCount, by: batchSize) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: shape.insert)
                for index in batch..<batch + batchSize {
                    let values: [DatabaseValue] = ["item \(index)".databaseValue, index.databaseValue, (Double(index) * 0.25).databaseValue, "note".databaseValue]
                    try statement.execute(arguments: StatementArguments(shape.key(index) + values))
                }
            }
        }
    }
    let update = try seconds {
        for batch in stride(from: 0, to: rowCount, by: batchSize) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: updates.statement(shape))
                for index in batch..<batch + batchSize {
                    try statement.execute(arguments: StatementArguments(updates.values(index) + shape.key(index)))
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

/// Best times of the inserts, and of the updates of each kind.
struct CaptureTimes {
    var insert = Double.infinity
    var updates = Dictionary(uniqueKeysWithValues: UpdateKind.allCases.map { ($0, Double.infinity) })
}

/// What records the application's writes.
enum Capture: CaseIterable {
    /// Nothing: the baseline.
    case off
    /// Capture's floor: one trigger per statement kind that appends one bare row (wall clock and
    /// key) per written row to a log table, whatever columns the write changed. Any capture by
    /// triggers that logs each write in the same transaction pays at least this.
    case bareLog
    /// RollingSync's capture before the log's column sets (v7), measured beside today's: one `AFTER UPDATE OF`
    /// trigger per column, each appending one entry per changed cell, with the same checks as
    /// RollingSync's triggers (the key unchanged, the value changed, capture on).
    case cellLog
    /// RollingSync's capture triggers.
    case rollingSync

    /// Sets the capture up on a new database of `shape`.
    func install(on pool: DatabasePool, _ shape: KeyShape) throws {
        let keys = shape.keyColumns
        let newKey = keys.map { "new.\($0)" }.joined(separator: ", ")
        switch self {
        case .off:
            return
        case .bareLog:
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE log (seq INTEGER PRIMARY KEY, wall REAL NOT NULL, \(keys.joined(separator: ", ")));
                    CREATE TRIGGER log_insert AFTER INSERT ON items BEGIN
                        INSERT INTO log VALUES (NULL, julianday(), \(newKey));
                    END;
                    CREATE TRIGGER log_update AFTER UPDATE ON items BEGIN
                        INSERT INTO log VALUES (NULL, julianday(), \(newKey));
                    END;
                    """)
            }
        case .cellLog:
            let keyDiffers = keys.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
            let captureIsOn = "(SELECT applying FROM log_switch) = 0"
            let updateTriggers = ["name", "quantity", "price", "note"].map { column in
                """
                CREATE TRIGGER log_update_\(column) AFTER UPDATE OF \(column) ON items
                WHEN NOT (\(keyDiffers)) AND (old.\(column) IS NOT new.\(column) OR typeof(old.\(column)) <> typeof(new.\(column))) AND \(captureIsOn) BEGIN
                    INSERT INTO log VALUES (NULL, julianday(), \(newKey), '\(column)');
                END;
                """
            }
            try pool.write { db in
                try db.execute(sql: """
                    CREATE TABLE log_switch (applying INTEGER NOT NULL);
                    INSERT INTO log_switch VALUES (0);
                    CREATE TABLE log (seq INTEGER PRIMARY KEY, wall REAL NOT NULL, \(keys.joined(separator: ", ")), column_name TEXT);
                    CREATE TRIGGER log_insert AFTER INSERT ON items WHEN \(captureIsOn) BEGIN
                        INSERT INTO log VALUES (NULL, julianday(), \(newKey), NULL);
                    END;
                    \(updateTriggers.joined(separator: "\n"))
                    """)
            }
        case .rollingSync:
            try LocalStore(writer: pool).register(table: "items")
        }
    }
}

/// Best times of the application's writes under each kind of capture.
func captureTimes(_ shape: KeyShape) throws -> [Capture: CaptureTimes] {
    var best = Dictionary(uniqueKeysWithValues: Capture.allCases.map { ($0, CaptureTimes()) })
    for _ in 0..<rounds {
        for capture in Capture.allCases {
            for updates in UpdateKind.allCases {
                let pool = try newDatabase("capture", shape)
                try capture.install(on: pool, shape)
                let times = try appWrites(on: pool, shape, updates: updates)
                best[capture]!.insert = min(best[capture]!.insert, times.insert)
                best[capture]!.updates[updates] = min(best[capture]!.updates[updates]!, times.update)
            }
        }
    }
    return best
}

// MARK: 2. Apply cost, and 3. size per change

typealias WriteTimes = (insert: Double, update: Double)

struct ApplyMeasurement {
    var source: DatabasePool
    var sourceStore: LocalStore
    var insertSet: PendingChangeSet
    var updateSet: PendingChangeSet
    var directTimes: WriteTimes = (insert: Double.infinity, update: Double.infinity)
    var applyTimes: WriteTimes = (insert: Double.infinity, update: Double.infinity)
    /// The same applies into a database whose table has an app trigger (that never writes), so the
    /// trigger guard of Docs/Conflicts.md ("Your own triggers") is installed: its own cost.
    var guardedApplyTimes: WriteTimes = (insert: Double.infinity, update: Double.infinity)
    /// The verification pass of the update set alone (part of its apply time).
    var verificationTime = Double.infinity
}

func applyCosts(_ shape: KeyShape) throws -> ApplyMeasurement {
    let source = try newDatabase("source", shape)
    let sourceStore = try LocalStore(writer: source)
    try sourceStore.register(table: "items")
    _ = try appWrites(on: source, shape, updates: .twoColumns)
    // appWrites logged inserts and updates together; push them as an insert set, then make an update set.
    let insertSetURL = directory.appendingPathComponent("inserts-\(shape).syncchg")
    let insertSet = try sourceStore.writePendingChangeSet(to: insertSetURL, setID: "inserts")!
    try sourceStore.markPushed(insertSet)
    try source.write { db in
        let statement = try db.cachedStatement(sql: "UPDATE items SET quantity = quantity + 1000, name = 'edited ' || id WHERE \(shape.matchesKey)")
        for index in keys.indices {
            try statement.execute(arguments: StatementArguments(shape.key(index)))
        }
    }
    let updateSetURL = directory.appendingPathComponent("updates-\(shape).syncchg")
    let updateSet = try sourceStore.writePendingChangeSet(to: updateSetURL, setID: "updates")!
    var measurement = ApplyMeasurement(source: source, sourceStore: sourceStore, insertSet: insertSet, updateSet: updateSet)

    let finalRows: [(key: [DatabaseValue], values: [DatabaseValue])] = try source.read { db in
        let keyList = shape.keyColumns.joined(separator: ", ")
        return try Row.fetchAll(db, sql: "SELECT \(keyList), name, quantity FROM items").map { row in
            (shape.keyColumns.map { row[$0] }, [row["name"], row["quantity"]])
        }
    }
    for _ in 0..<rounds {
        let direct = try newDatabase("direct", shape)
        let directInsert = try seconds {
            try direct.write { db in
                let statement = try db.cachedStatement(sql: shape.insert)
                for (index, row) in finalRows.enumerated() {
                    let values: [DatabaseValue] = ["item \(index)".databaseValue, index.databaseValue, (Double(index) * 0.25).databaseValue, "note".databaseValue]
                    try statement.execute(arguments: StatementArguments(row.key + values))
                }
            }
        }
        let directUpdate = try seconds {
            try direct.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE items SET name = ?, quantity = ? WHERE \(shape.matchesKey)")
                for row in finalRows {
                    try statement.execute(arguments: StatementArguments(row.values + row.key))
                }
            }
        }
        measurement.directTimes = (min(measurement.directTimes.insert, directInsert), min(measurement.directTimes.update, directUpdate))

        let target = try newDatabase("target", shape)
        let targetStore = try LocalStore(writer: target)
        try targetStore.register(table: "items")
        let applyInsert = try seconds { try targetStore.applyChangeSet(at: insertSetURL) }
        let applyUpdate = try seconds { try targetStore.applyChangeSet(at: updateSetURL) }
        measurement.applyTimes = (min(measurement.applyTimes.insert, applyInsert), min(measurement.applyTimes.update, applyUpdate))
        measurement.verificationTime = min(measurement.verificationTime, try seconds { _ = try ChangeSetReader.verify(fileAt: updateSetURL) })
        let converged = try target.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE name LIKE 'edited %'") }
        let echoed = try targetStore.hasPendingChanges()
        precondition(converged == rowCount && !echoed, "apply did not reproduce the source")

        let guarded = try newDatabase("guarded", shape)
        try guarded.write { db in
            try db.execute(sql: "CREATE TRIGGER items_app_trigger AFTER UPDATE ON items WHEN new.quantity < 0 BEGIN SELECT 1; END")
        }
        let guardedStore = try LocalStore(writer: guarded)
        try guardedStore.register(table: "items")
        let guardedInsert = try seconds { try guardedStore.applyChangeSet(at: insertSetURL) }
        let guardedUpdate = try seconds { try guardedStore.applyChangeSet(at: updateSetURL) }
        measurement.guardedApplyTimes = (
            min(measurement.guardedApplyTimes.insert, guardedInsert), min(measurement.guardedApplyTimes.update, guardedUpdate)
        )
    }
    return measurement
}

let capture = try Dictionary(uniqueKeysWithValues: KeyShape.allCases.map { ($0, try captureTimes($0)) })
let apply = try Dictionary(uniqueKeysWithValues: KeyShape.allCases.map { ($0, try applyCosts($0)) })
let sourceStore = apply[.text]!.sourceStore
let source = apply[.text]!.source
let insertSet = apply[.text]!.insertSet
let updateSet = apply[.text]!.updateSet

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

print("SyncCoreBenchmark (process CPU seconds, best of \(rounds) rounds; \(rowCount) rows, \(batchSize) rows per transaction)")
for shape in KeyShape.allCases {
    let times = capture[shape]!
    let (plain, captured) = (times[.off]!, times[.rollingSync]!)
    /// One line of section 1: the plain time, then each capture's time and ratio to it.
    func captureLine(_ name: String, _ time: (CaptureTimes) -> Double) -> String {
        func ratio(_ capture: Capture) -> String { format(time(times[capture]!) / time(plain)) }
        return "   \(name.padding(toLength: 31, withPad: " ", startingAt: 0)) plain \(format(time(plain))) s, "
            + "bare log \(ratio(.bareLog))× (the floor), log per cell \(ratio(.cellLog))×, "
            + "captured \(format(time(captured))) s, ratio \(ratio(.rollingSync))×"
    }
    /// The ratio of inserts and updates of `kind` together.
    func totalRatio(_ kind: UpdateKind) -> String {
        format((captured.insert + captured.updates[kind]!) / (plain.insert + plain.updates[kind]!))
    }
    print("")
    print("1. Change capture overhead, \(shape.rawValue) (targets: inserts ≤ 1.25×, updates ≤ 1.5×; the floor: a trigger appending one bare log row a write;")
    print("   the log per cell: one entry per changed cell from one trigger per column, RollingSync's capture before column sets)")
    print(captureLine("inserts:", \.insert))
    print(captureLine("updates (1 column):", { $0.updates[.oneColumn]! }))
    print(captureLine("updates (2 columns):", { $0.updates[.twoColumns]! }))
    print(captureLine("updates (whole row, 1 changed):", { $0.updates[.wholeRow]! }))
    print("   inserts + 1-column updates: ratio \(totalRatio(.oneColumn))×; inserts + 2-column updates: ratio \(totalRatio(.twoColumns))×")
    let costs = apply[shape]!
    let (directTimes, applyTimes, guardedApplyTimes) = (costs.directTimes, costs.applyTimes, costs.guardedApplyTimes)
    print("")
    print("2. Apply versus direct writes, \(shape.rawValue) (target ≤ 2×; apply includes the verification pass)")
    print("   \(rowCount) inserts:            direct \(format(directTimes.insert)) s, apply \(format(applyTimes.insert)) s, ratio \(format(applyTimes.insert / directTimes.insert))×")
    print("   \(rowCount) 2-column updates:   direct \(format(directTimes.update)) s, apply \(format(applyTimes.update)) s, ratio \(format(applyTimes.update / directTimes.update))×")
    print("   total:                          ratio \(format((applyTimes.insert + applyTimes.update) / (directTimes.insert + directTimes.update)))×")
    print("   of the update apply, the verification pass: \(format(costs.verificationTime)) s (a sync verifies while downloading and skips it)")
    print("   with an app trigger on the table (the trigger guard installed), against the same apply without:")
    print("     inserts \(format(guardedApplyTimes.insert)) s, ratio \(format(guardedApplyTimes.insert / applyTimes.insert))×; "
        + "2-column updates \(format(guardedApplyTimes.update)) s, ratio \(format(guardedApplyTimes.update / applyTimes.update))×")
}
/// The capture ratio (inserts + 1-column updates) and the apply ratio (total) of a key shape.
func ratios(_ shape: KeyShape) -> (capture: Double, apply: Double) {
    let (plain, captured) = (capture[shape]![.off]!, capture[shape]![.rollingSync]!)
    let costs = apply[shape]!
    let applied = costs.applyTimes.insert + costs.applyTimes.update
    return ((captured.insert + captured.updates[.oneColumn]!) / (plain.insert + plain.updates[.oneColumn]!), applied / (costs.directTimes.insert + costs.directTimes.update))
}
let (textRatios, compositeRatios, integerRatios) = (ratios(.text), ratios(.composite), ratios(.integer))
print("")
print("   composite key relative to TEXT key (goal ≤ 1.1×): capture ratio \(format(compositeRatios.capture / textRatios.capture))×, "
    + "apply ratio \(format(compositeRatios.apply / textRatios.apply))×")
print("   integer key relative to TEXT key (goal ≤ 1.25×): capture ratio \(format(integerRatios.capture / textRatios.capture))×, "
    + "apply ratio \(format(integerRatios.apply / textRatios.apply))×")
/// The seconds a key shape's writes take with capture on, and its applies (inserts and updates).
func absolute(_ shape: KeyShape) -> (capture: Double, apply: Double) {
    let captured = capture[shape]![.rollingSync]!
    let applied = apply[shape]!.applyTimes
    return (captured.insert + captured.updates[.oneColumn]!, applied.insert + applied.update)
}
/// The seconds a key shape's inserts and 1-column updates take without capture.
func plainSeconds(_ shape: KeyShape) -> Double {
    capture[shape]![.off]!.insert + capture[shape]![.off]!.updates[.oneColumn]!
}
let (textSeconds, integerSeconds) = (absolute(.text), absolute(.integer))
print("   integer key against TEXT key in CPU seconds (an integer table without capture costs "
    + "\(format(plainSeconds(.integer) / plainSeconds(.text)))× "
    + "a TEXT one): writes with capture \(format(integerSeconds.capture / textSeconds.capture))×, apply \(format(integerSeconds.apply / textSeconds.apply))×")
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
