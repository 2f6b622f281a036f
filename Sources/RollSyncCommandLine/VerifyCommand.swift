import ArgumentParser
import Foundation
import SyncCore

/// `rollsync verify`: checks the remote copy of the database's document and lists every problem;
/// exit code 6 when there is any. `--repair` carries out only the provably safe repairs.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the remote document: unreadable or missing change sets, damaged whole stores, leftovers, unknown files.",
        discussion: """
            Without --deep, checks what names, sizes and the small index files tell (one listing per directory). \
            Nothing is changed unless --repair is given, which removes only what is provably safe: markers of \
            removed clients, and whole-store uploads and temporary files of uploads interrupted more than a day ago. \
            Notices (an upload in flight, a file the format does not know) are listed too; exit code 6 only when \
            problems were found.
            """
    )

    @OptionGroup var target: SessionOptions

    @Flag(name: .long, help: "Also download every change set and whole store and check its content.")
    var deep = false

    @Flag(name: .long, help: "Carry out the provably safe repairs and say each.")
    var repair = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            let report = try await session.showingProgress(quiet: output.json) {
                try await $0.verifyRemote(VerificationOptions(deep: deep, repair: repair))
            }
            try output.console.emit(VerifyResult(document: session.settings.documentID, deep: deep, report: report))
            guard report.isClean else {
                let problems = report.problems.filter { $0.severity == .problem }
                let repaired = problems.filter(\.repaired).count
                throw CommandLineError(
                    .problemsFound,
                    "\(problems.count) problems found in document \(session.settings.documentID)" + (repair ? ", \(repaired) repaired" : ""),
                    hint: repair || !report.problems.contains(where: \.isRepairable) ? nil : "`rollsync verify --repair` fixes those marked repairable"
                )
            }
        }
    }
}

/// What `verify` found.
struct VerifyResult: CommandResult {
    var command = "verify"
    var document: String
    var deep: Bool
    var report: VerificationReport

    var humanLines: [String] {
        let problems = report.problems.filter { $0.severity == .problem }.count
        let notices = report.problems.count - problems
        var lines = [
            "document \(document): \(problems == 0 ? "no problems" : "\(problems) problems")\(notices == 0 ? "" : ", \(notices) notices")"
                + " (\(report.changeSetsChecked) change sets read, \(report.wholeStoresChecked) whole stores checked\(deep ? "" : "; names and sizes only, --deep reads every file"))"
        ]
        for problem in report.problems {
            let mark = problem.repaired ? "repaired" : problem.isRepairable ? "repairable" : problem.severity.rawValue
            lines.append("  \(mark): \(problem.kind) \(problem.path): \(problem.detail)")
        }
        let range = report.restorableRange
        if !range.isRestorable {
            lines.append("restorable: nothing (vacuumed history is in no whole store)")
        } else {
            lines.append(
                "restorable: from \(range.earliest.map { $0.historyTimestamp } ?? "the beginning") to "
                    + (range.latest.map { $0.historyTimestamp } ?? "now")
            )
        }
        return lines
    }
}
