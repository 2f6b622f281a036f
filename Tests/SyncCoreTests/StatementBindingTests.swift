import Foundation
import GRDB
import Testing
@testable import SyncCore

@Suite("Statements run with values bound directly")
struct StatementBindingTests {
    @Test("fetchFirstRow reads the first row's values, nil without one, and the statement stays usable after a failure")
    func fetchFirstRow() throws {
        let database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'one'), (2, NULL)")
            let select = try db.makeStatement(sql: "SELECT id, name, ?2 FROM t WHERE id >= ?1 ORDER BY id")
            #expect(try select.fetchFirstRow(binding: [1.databaseValue, "x".databaseValue]) == [1.databaseValue, "one".databaseValue, "x".databaseValue])
            #expect(try select.fetchFirstRow(binding: [2.databaseValue, .null]) == [2.databaseValue, .null, .null])
            #expect(try select.fetchFirstRow(binding: [3.databaseValue, .null]) == nil)

            // A step that fails (an overflow in the query) throws, and the next use works.
            let failing = try db.makeStatement(sql: "SELECT abs(?)")
            #expect(throws: DatabaseError.self) { try failing.fetchFirstRow(binding: [Int64.min.databaseValue]) }
            #expect(try failing.fetchFirstRow(binding: [(-5).databaseValue]) == [5.databaseValue])
        }
    }
}
