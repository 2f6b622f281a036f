import Foundation
import TestSupport
import Testing

/// Bad input ends with a clear one-line error, a documented non-zero exit code, and an untouched
/// database.
@Suite("rollsync refuses bad input")
struct BadInputTests {
    /// Runs `arguments` against a fresh notes database and checks the exit code, the message, and
    /// that the database's bytes did not change.
    private func expectRefusal(
        _ arguments: (_ database: String, _ workspace: Workspace) -> [String],
        environment: [String: String?] = [:],
        status: Int32,
        message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite", rows: [("1", "keep me")])
        let before = workspace.fingerprint(of: database)
        let outcome = try await RollsyncProcess.run(arguments(database, workspace), environment: environment)
        #expect(outcome.status == status, "\(outcome.standardError)", sourceLocation: sourceLocation)
        #expect(outcome.standardError.contains(message), "\(outcome.standardError)", sourceLocation: sourceLocation)
        #expect(outcome.standardError.hasPrefix("rollsync: "), sourceLocation: sourceLocation)
        #expect(workspace.fingerprint(of: database) == before, "the database changed", sourceLocation: sourceLocation)
    }

    @Test("an unknown table")
    func unknownTable() async throws {
        try await expectRefusal(
            { ["init", "--db", $0, "--remote", $1.path("shared"), "--table", "nope"] },
            status: 1, message: "has no table named 'nope'"
        )
    }

    @Test("a view")
    func view() async throws {
        try await expectRefusal(
            { ["init", "--db", $0, "--remote", $1.path("shared"), "--table", "notes", "--table", "recent"] },
            status: 4, message: "it is a view"
        )
    }

    @Test("a missing database is not created")
    func missingDatabase() async throws {
        let workspace = try Workspace()
        let missing = workspace.path("missing.sqlite")
        let outcome = try await RollsyncProcess.run(["init", "--db", missing, "--remote", workspace.path("shared"), "--table", "notes"])
        #expect(outcome.status == 4)
        #expect(outcome.standardError.contains("there is no database at"))
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("a file that is not SQLite")
    func notSQLite() async throws {
        let workspace = try Workspace()
        let file = workspace.path("text.sqlite")
        try Data("hello, not a database".utf8).write(to: URL(fileURLWithPath: file))
        let outcome = try await RollsyncProcess.run(["sync", "--db", file])
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("hello, not a database".utf8))
    }

    @Test("a database a newer release upgraded: exit code 5, nothing changed")
    func newerRelease() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite", rows: [("1", "keep me")])
        let created = try await RollsyncProcess.run(["init", "--db", database, "--remote", workspace.path("shared"), "--table", "notes"])
        #expect(created.status == 0, "\(created.standardError)")
        try workspace.execute("INSERT INTO rollingsync_migrations VALUES ('rollingsync v99: from the future')", in: database)
        let before = workspace.fingerprint(of: database)
        let outcome = try await RollsyncProcess.run(["sync", "--db", database])
        #expect(outcome.status == 5, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("a newer RollingSync release upgraded this database (its migration 'rollingsync v99: from the future')"))
        #expect(outcome.standardError.contains("hint: update rollsync"))
        #expect(workspace.fingerprint(of: database) == before, "the database changed")
    }

    @Test("sync on a database that was never set up")
    func notInitialised() async throws {
        try await expectRefusal({ database, _ in ["sync", "--db", database] }, status: 4, message: "is not set up for syncing")
    }

    @Test("an unknown URL scheme")
    func unknownScheme() async throws {
        try await expectRefusal(
            { database, _ in ["init", "--db", database, "--remote", "gopher://example.org/x", "--table", "notes"] },
            status: 1, message: "no backend is registered for the URL scheme 'gopher'"
        )
    }

    @Test("a password in the URL is refused and never echoed")
    func passwordInURL() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let before = workspace.fingerprint(of: database)
        let outcome = try await RollsyncProcess.run(
            ["init", "--db", database, "--remote", "webdav://user:hunter2@127.0.0.1:1/", "--table", "notes"]
        )
        #expect(outcome.status == 1)
        #expect(!outcome.standardError.contains("hunter2") && !outcome.standardOutput.contains("hunter2"))
        #expect(workspace.fingerprint(of: database) == before)
    }

    @Test("an unreachable server")
    func unreachableServer() async throws {
        try await expectRefusal(
            { database, workspace in
                ["init", "--db", database, "--remote", "sftp://nobody@127.0.0.1:1/x", "--table", "notes",
                 "--known-hosts", workspace.path("known_hosts")]
            },
            status: 2, message: "127.0.0.1:1"
        )
    }

    @Test("a wrong encryption password")
    func wrongPassword() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        let owner = try workspace.makeNotesDatabase("owner.sqlite")
        let created = try await RollsyncProcess.run(
            ["init", "--db", owner, "--remote", remote, "--table", "notes", "--encrypt"], environment: ["ROLLSYNC_PASSWORD": "right"]
        )
        #expect(created.status == 0, "\(created.standardError)")
        let joiner = try workspace.makeNotesDatabase("joiner.sqlite", rows: [("1", "keep me")])
        let before = workspace.fingerprint(of: joiner)
        let outcome = try await RollsyncProcess.run(
            ["init", "--db", joiner, "--remote", remote, "--table", "notes"], environment: ["ROLLSYNC_PASSWORD": "wrong"]
        )
        #expect(outcome.status == 3)
        #expect(outcome.standardError.contains("hint: set ROLLSYNC_PASSWORD"))
        #expect(!outcome.standardError.contains("wrong\n"))
        #expect(workspace.fingerprint(of: joiner) == before)

        let missing = try await RollsyncProcess.run(
            ["init", "--db", joiner, "--remote", remote, "--table", "notes"], environment: ["ROLLSYNC_PASSWORD": nil]
        )
        #expect(missing.status == 3, "no password and no terminal: \(missing.standardError)")
        #expect(workspace.fingerprint(of: joiner) == before)
    }

    @Test("--encrypt without a password creates nothing")
    func encryptWithoutPassword() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        try await expectRefusal(
            { database, _ in ["init", "--db", database, "--remote", remote, "--table", "notes", "--encrypt"] },
            environment: ["ROLLSYNC_PASSWORD": nil],
            status: 3, message: "no encryption password was given"
        )
        #expect(!FileManager.default.fileExists(atPath: remote + "/rollsync"), "no unencrypted remote data was created")
    }

    @Test("a usage error: missing option")
    func missingOption() async throws {
        let outcome = try await RollsyncProcess.run(["sync"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("--db"))
    }

    @Test("help lists the exit codes")
    func helpListsExitCodes() async throws {
        let outcome = try await RollsyncProcess.run(["--help"])
        #expect(outcome.status == 0)
        for code in 1...5 {
            #expect(outcome.standardOutput.contains("  \(code)  "))
        }
    }
}
