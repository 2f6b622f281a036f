import FileRemote
import Foundation
import SyncCore
import TestSupport
import Testing

/// `rollsync upgrade-format` on an application an older build created in format 1.
@Suite("rollsync upgrade-format")
struct UpgradeFormatCommandTests {
    @Test("waits (exit 5) for a client that never synced, upgrades once it is removed, then has nothing to do; both clients keep syncing")
    func upgradeFormat() async throws {
        let workspace = try Workspace()
        let remote = workspace.path("shared")
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        // The application as a format-1 build created it, with a client that never synced.
        let creator = ApplicationSyncManager(
            store: try FileRemoteStore(root: URL(fileURLWithPath: remote)), applicationID: try SyncIdentifier("rollsync"),
            device: DeviceInfo(clientID: try SyncIdentifier("old-laptop"), description: "an older build", registeredAt: Date())
        )
        await creator.createNewApplications(inFormat: 1)
        _ = try await creator.register()
        let first = try workspace.makeNotesDatabase("first.sqlite")
        let second = try workspace.makeNotesDatabase("second.sqlite")
        for database in [first, second] {
            let initialised = try await RollsyncProcess.run(["init", "--db", database, "--remote", remote, "--table", "notes"])
            #expect(initialised.status == 0, "\(initialised.standardError)")
        }
        try workspace.execute("INSERT INTO notes VALUES ('a', 'before the upgrade')", in: first)
        for database in [first, second] {
            #expect(try await RollsyncProcess.run(["sync", "--db", database]).status == 0)
        }

        let waiting = try await RollsyncProcess.run(["upgrade-format", "--db", first])
        #expect(waiting.status == 5, "\(waiting.standardError)")
        #expect(waiting.standardError.contains("old-laptop") && waiting.standardError.contains("delete-client"), "\(waiting.standardError)")
        let removed = try await RollsyncProcess.run(["delete-client", "--db", first, "--client", "old-laptop", "--everywhere"])
        #expect(removed.status == 0, "\(removed.standardError)")

        let upgraded = try await RollsyncProcess.run(["upgrade-format", "--db", first, "--json"])
        #expect(upgraded.status == 0, "\(upgraded.standardError)")
        let result = try #require(try upgraded.jsonObjects().first)
        #expect(result["upgraded"] as? Bool == true && result["previousVersion"] as? Int == 1 && result["version"] as? Int == 2)
        #expect(result["documents"] as? [String] == ["default"])
        let format = try String(contentsOfFile: "\(remote)/rollsync/format.json", encoding: .utf8)
        #expect(format.contains("\"version\" : 2") && format.contains("\"upgradedFrom\" : 1"), "\(format)")

        try workspace.execute("INSERT INTO notes VALUES ('b', 'after the upgrade')", in: second)
        for database in [second, first] {
            #expect(try await RollsyncProcess.run(["sync", "--db", database]).status == 0)
        }
        #expect(try workspace.notes(in: first) == ["a=before the upgrade", "b=after the upgrade"])
        #expect(try workspace.notes(in: first) == workspace.notes(in: second))
        let again = try await RollsyncProcess.run(["upgrade-format", "--db", second])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("already has remote format 2"), "\(again.standardOutput)")
    }
}
