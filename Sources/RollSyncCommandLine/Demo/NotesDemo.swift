import Foundation
import SyncCore

/// The scenario `rollsync demo` plays: three clients of a notes app sharing a folder. It edits on
/// each, syncs, provokes a conflict and shows its resolution, bootstraps a new client, and checks
/// that everyone ends with the same notebook.
struct NotesDemo {
    /// The scratch directory: `remote/` (the shared folder) and one database per client.
    var directory: URL
    /// Where the narration goes.
    var console: Console

    private var totals = DemoTotals()

    init(directory: URL, console: Console) {
        self.directory = directory
        self.console = console
    }

    /// Plays the scenario.
    mutating func run() async throws -> DemoResult {
        let started = ContinuousClock.now
        let remote = directory.appendingPathComponent("remote", isDirectory: true)
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        console.say("RollingSync demo: three clients of a notes app (notes, tags, note_tags) share a folder.")
        console.say("  shared folder: \(remote.path)")

        step("1. Alice writes two notes and syncs; Bob joins and receives them.")
        let alice = try NotesClient(name: "alice", directory: directory, remote: remote)
        let bob = try NotesClient(name: "bob", directory: directory, remote: remote)
        try alice.addNote("Groceries", body: "bread, olives", tags: ["home"])
        let trip = try alice.addNote("Trip plan", body: "book the train", tags: ["travel", "home"])
        try await sync(alice)
        try await sync(bob)

        step("2. Bob adds a note and drops Groceries; Alice syncs and sees both.")
        try bob.addNote("Reading list", body: "Dune", tags: ["home"])
        try bob.delete(try bob.noteID(titled: "Groceries"))
        try await sync(bob)
        try await sync(alice)

        step("3. Both rename 'Trip plan' before syncing: a conflict on notes.title.")
        try alice.rename(trip, to: "Trip to Lisbon")
        try bob.rename(trip, to: "Trip to Porto")
        try await sync(alice)
        let conflictReport = try await sync(bob)
        if conflictReport.conflicts.isEmpty {
            console.say("  (no conflict: Bob's sync saw no concurrent change)")
        } else {
            console.say("  resolved by the default policy, last writer wins (by hybrid logical clock); a kept local value is re-published")
        }
        try await sync(alice)

        step("4. Alice uploads a whole store; Carol joins with an empty database and starts from it.")
        let upload = try await ProgressDisplay.showing(alice.manager, quiet: console.json) { try await $0.uploadWholeStore() }
        totals.wholeStoreBytes = upload.uploadedBytes
        console.say("  alice uploads whole store \(upload.unit.directoryName) (\(upload.appliedSetCount) change sets folded in)")
        let carol = try NotesClient(name: "carol", directory: directory, remote: remote)
        let bootstrap = try await ProgressDisplay.showing(carol.manager, quiet: console.json) { try await $0.downloadWholeStore() }
        totals.add(bootstrap)
        console.say(
            "  carol bootstraps by whole-store download: installed \(bootstrap.wholeStoreInstalled?.unit.directoryName ?? "nothing") "
                + "of \(bootstrap.wholeStoreInstalled?.client.rawValue ?? "nobody"), then applied \(bootstrap.appliedSets) newer change sets; "
                + "\(bootstrap.requests) requests"
        )
        try carol.addNote("Carol's recipes", body: "gazpacho", tags: ["home"])
        try await sync(carol)
        try await sync(alice)
        try await sync(bob)

        step("5. The converged state.")
        let clients = [alice, bob, carol]
        let contents = try clients.map { try $0.contents() }
        let converged = contents.allSatisfy { $0 == contents[0] }
        for (client, lines) in zip(clients, contents) {
            console.say("  \(client.name):")
            lines.forEach { console.say("    \($0)") }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let result = DemoResult(converged: converged, notebook: contents[0], totals: totals, seconds: seconds, scratch: directory.path)
        console.say(converged ? "All three clients converged to the same notebook." : "The clients did NOT converge.")
        console.say(
            "Summary: \(totals.syncs) syncs, \(totals.changesPushed) changes pushed, \(totals.changesApplied) applied, "
                + "\(totals.conflicts) conflict(s), \(totals.requests) requests, "
                + "\(SyncResult.bytes(totals.bytesUploaded)) up, \(SyncResult.bytes(totals.bytesDownloaded)) down in syncs, "
                + "a \(SyncResult.bytes(totals.wholeStoreBytes)) whole store, "
                + String(format: "%.2f s", seconds)
        )
        return result
    }

    private func step(_ text: String) {
        console.say("")
        console.say(text)
    }

    @discardableResult
    private mutating func sync(_ client: NotesClient) async throws -> SyncReport {
        let report = try await client.sync()
        totals.add(report)
        var line = "  \(client.name) syncs: applied \(report.appliedChanges) changes from \(report.appliedSets) sets, "
            + "pushed \(report.pushedChanges); \(report.requests) requests"
        if !report.warnings.isEmpty { line += "; \(report.warnings.count) warning(s)" }
        console.say(line)
        for conflict in SyncResult(database: client.name, report: report).conflicts {
            console.say(
                "  conflict: \(conflict.table).\(conflict.column): \(client.name) has \(conflict.local), "
                    + "the other side \(conflict.remote) → kept \(conflict.kept)"
            )
        }
        return report
    }
}

/// What the demo ended with.
struct DemoResult: CommandResult {
    var command = "demo"
    var converged: Bool
    var notebook: [String]
    var totals: DemoTotals
    var seconds: Double
    var scratch: String

    var humanLines: [String] { [] }
}
