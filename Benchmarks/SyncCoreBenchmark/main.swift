import Foundation
import GRDB
import SyncCore

// Quick capture probe (replaced by the full benchmark below once the design is settled).
func elapsed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scb-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let rowCount = 100_000
let keys = (0..<rowCount).map { _ in UUID().uuidString }

func workload(capture: Bool) throws -> (Double, Double) {
    let pool = try DatabasePool(path: directory.appendingPathComponent("\(capture)-\(UUID().uuidString).sqlite").path)
    try pool.write { db in
        try db.execute(sql: "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT, quantity INTEGER, price REAL, note TEXT)")
    }
    let store = try LocalStore(writer: pool)
    if capture { try store.register(table: "items") }
    let insertTime = try elapsed {
        for batch in stride(from: 0, to: rowCount, by: 1000) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO items (id, name, quantity, price, note) VALUES (?, ?, ?, ?, ?)")
                for index in batch..<batch + 1000 {
                    try statement.execute(arguments: [keys[index], "item \(index)", index, Double(index) * 0.5, "note"])
                }
            }
        }
    }
    let updateTime = try elapsed {
        for batch in stride(from: 0, to: rowCount, by: 1000) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE items SET quantity = ?, name = ? WHERE id = ?")
                for index in batch..<batch + 1000 {
                    try statement.execute(arguments: [index + 1, "renamed \(index)", keys[index]])
                }
            }
        }
    }
    if capture { print("log rows", try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM rollingsync_changes") } ?? -1) }
    return (insertTime, updateTime)
}
var plain = (Double.infinity, Double.infinity)
var captured = plain
for _ in 0..<3 {
    let p = try workload(capture: false); plain = (min(plain.0, p.0), min(plain.1, p.1))
    let c = try workload(capture: true); captured = (min(captured.0, c.0), min(captured.1, c.1))
}
print("plain insert \(plain.0) update \(plain.1)")
print("captured insert \(captured.0) update \(captured.1)")
print("ratio \((captured.0 + captured.1) / (plain.0 + plain.1))")
