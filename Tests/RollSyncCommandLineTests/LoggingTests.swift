import Foundation
import TestSupport
import Testing

/// `--verbose` and `--log-level`: RollingSync's log on standard error, with the phases, requests and
/// decisions of a sync, and never a secret or a row's values; standard output stays the results.
@Suite("rollsync logging")
struct LoggingTests {
    @Test("--verbose logs phases, requests and applied sets on standard error, never the password or values")
    func verboseSync() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let first = try workspace.makeNotesDatabase("first.sqlite")
        let second = try workspace.makeNotesDatabase("second.sqlite")
        let password = "pass-\(UUID().uuidString)"
        for database in [first, second] {
            let outcome = try await RollsyncProcess.run(
                ["init", "--db", database, "--remote", remote, "--table", "notes", "--encrypt"], environment: ["ROLLSYNC_PASSWORD": password]
            )
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
        let value = "value-\(UUID().uuidString)"
        try workspace.execute("INSERT INTO notes VALUES ('n', '\(value)')", in: first)
        let pushed = try await RollsyncProcess.run(["sync", "--db", first, "--verbose", "--json"], environment: ["ROLLSYNC_PASSWORD": password])
        #expect(pushed.status == 0, "\(pushed.standardError)")
        #expect(try pushed.jsonObjects().first?["pushedChanges"] as? Int == 1, "standard output still holds only the JSON result")
        for event in ["sync started", "remote request", "primitive=upload", "pushed change set", "sync finished"] {
            #expect(pushed.standardError.contains(event), "missing '\(event)' in: \(pushed.standardError)")
        }
        let pulled = try await RollsyncProcess.run(["sync", "--db", second, "--log-level", "debug"], environment: ["ROLLSYNC_PASSWORD": password])
        #expect(pulled.status == 0, "\(pulled.standardError)")
        #expect(pulled.standardError.contains("applied change set") && pulled.standardError.contains("primitive=download"))
        for output in [pushed, pulled] {
            let everything = output.standardOutput + output.standardError
            #expect(!everything.contains(password), "the password is never logged")
            #expect(!everything.contains(value), "row values are never logged")
        }

        let quiet = try await RollsyncProcess.run(["sync", "--db", second, "--log-level", "warning"])
        #expect(quiet.status == 0 && !quiet.standardError.contains("remote request"), "warning and above only")
        let wrong = try await RollsyncProcess.run(["sync", "--db", second, "--log-level", "chatty"])
        #expect(wrong.status == 1 && wrong.standardError.contains("--log-level"))
    }
}
