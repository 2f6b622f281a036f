import ArgumentParser
import Foundation
import SyncCore

/// `rollsync restore`: rebuilds the document as it was at a moment into a new database file.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Rebuild the document as it was at a moment (or before a change set) into a new database file.",
        discussion: """
            Starts from the newest whole store not newer than the moment and applies the change sets up to it. \
            The new file is an ordinary database, not bound to any document and without rollsync settings (run init to \
            sync it); the configured database is not changed. \
            Refused, naming the earliest restorable moment, when vacuum removed the history needed \
            (keep it with `vacuum --keep-days N` and `push-store --keep-days N`).
            """
    )

    @OptionGroup var target: SessionOptions

    @Option(name: .long, help: ArgumentHelp("The moment, in ISO 8601 UTC, as `log` and `status` print it.", valueName: "time"))
    var at: Moment?

    @Option(name: .customLong("before-set"), help: ArgumentHelp("Restore to just before this change set (its id, as `log` prints it).", valueName: "id"))
    var beforeSet: String?

    @Option(name: .long, help: ArgumentHelp("The new database file (it must not exist).", valueName: "file"))
    var to: String

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (at == nil) != (beforeSet == nil) else {
            throw ValidationError("give exactly one of --at TIME and --before-set ID")
        }
    }

    func run() async throws {
        let point: RestorePoint = if let at { .at(at.date) } else { .beforeChangeSet(beforeSet ?? "") }
        let destination = URL(fileURLWithPath: to)
        try await target.withSession { session in
            let report = try await session.showingProgress(quiet: output.json) { try await $0.restore(point, to: destination) }
            // A whole store of another rollsync client carries its settings (its client id above all).
            try CommandLineSettings.remove(fromDatabaseAt: destination)
            try output.console.emit(RestoreResult(file: to, point: "\(point)", report: report))
        }
    }
}

/// What `restore` did.
struct RestoreResult: CommandResult {
    var command = "restore"
    var file: String
    var point: String
    var report: RestoreReport

    var humanLines: [String] {
        [
            "restored \(point) into \(file): "
                + (report.base.map { "whole store \($0)" } ?? "replayed from the beginning")
                + " + \(report.appliedSets) change sets (\(report.appliedChanges) changes)",
            "  newest change set included: " + (report.newestSet.map { "\($0) of \(report.newestSetTime?.historyTimestamp ?? "")" } ?? "none"),
        ]
    }
}
