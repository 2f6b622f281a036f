import Foundation
import TestSupport
import Testing

/// `rollsync demo`, run as a separate process.
@Suite("rollsync demo")
struct DemoCommandTests {
    @Test("the demo converges and leaves nothing behind")
    func demoConvergesAndCleansUp() async throws {
        let workspace = try Workspace()
        let outcome = try await RollsyncProcess.run(["demo", "--json", "--scratch-parent", workspace.directory.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let result = try #require(try outcome.jsonObjects().last)
        #expect(result["converged"] as? Bool == true)
        let notebook = try #require(result["notebook"] as? [String])
        #expect(notebook.count == 3)
        #expect(notebook.contains { $0.hasPrefix("Trip to ") }, "the conflicting title is one of the two edits")
        let totals = try #require(result["totals"] as? [String: Any])
        #expect(totals["conflicts"] as? Int == 1)
        #expect((totals["requests"] as? Int ?? 0) > 0)
        #expect((totals["wholeStoreBytes"] as? Int ?? 0) > 0, "the third client bootstraps from a whole store")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).isEmpty)
    }

    @Test("--keep keeps the scratch directory and says where it is")
    func keepKeepsTheScratchDirectory() async throws {
        let workspace = try Workspace()
        let outcome = try await RollsyncProcess.run(["demo", "--keep", "--scratch-parent", workspace.directory.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("All three clients converged"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path)
        let scratch = try #require(kept.first)
        #expect(outcome.standardOutput.contains("Kept: \(workspace.path(scratch))"))
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.path(scratch)).sorted()
        #expect(files.contains("remote") && files.contains("alice.sqlite") && files.contains("carol.sqlite"))
    }
}
