import Foundation
@testable import RollSyncCommandLine
import SyncCore
import Testing

/// The line `rollsync sync` prints for a sync, and what it records for `status`.
struct SyncResultTests {
    @Test("the summary names the retried requests only when there were some; an older record without them still decodes")
    func retriedRequestsInTheSummary() throws {
        var report = SyncReport()
        report.requests = 3
        #expect(SyncResult(database: "notes.db", report: report).summary.contains("; 3 requests, "))
        report.retriedRequests = 2
        let retried = SyncResult(database: "notes.db", report: report)
        #expect(retried.summary.contains("; 3 requests (2 retried), "))

        let encoded = try JSONEncoder().encode(retried)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["retriedRequests"] as? Int == 2)
        object["retriedRequests"] = nil
        let older = try JSONDecoder().decode(SyncResult.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(older.retriedRequests == nil)
        #expect(older.summary.contains("; 3 requests, "))
    }
}
