import ArgumentParser
import Foundation
import SyncCore

/// `rollsync vacuum`: removes this client's change sets that every client has applied.
struct VacuumCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vacuum",
        abstract: "Remove this client's change sets every client has applied and every whole store holds."
    )

    @OptionGroup var target: SessionOptions

    @Option(
        name: .customLong("retire-after-days"),
        help: ArgumentHelp(
            "Stop waiting for clients silent this many days (they re-bootstrap from a whole store if they return). "
                + "A client that syncs without pushing records its sync once a day: give two days or more.",
            valueName: "days"
        )
    )
    var retireAfterDays: Double?

    @OptionGroup var history: KeepHistoryOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            let options = VacuumOptions(retireClientsSilentFor: retireAfterDays.map { $0 * 86_400 }, keepHistoryFor: history.period)
            let report = try await session.showingProgress(quiet: output.json) { try await $0.vacuum(options) }
            try output.console.emit(
                VacuumResult(
                    removedSets: report.removedSets.count, keptSets: report.keptSets,
                    heldBackBy: report.holds.map(Self.describe),
                    retiredClients: report.retiredClients.map(\.rawValue),
                    removedWholeStores: report.removedWholeStores.count
                )
            )
        }
    }
}

extension VacuumCommand {
    /// What holds vacuum back, in a few words.
    static func describe(_ hold: VacuumReport.Hold) -> String {
        switch hold.reason {
        case .notApplied: hold.client?.rawValue ?? "a client"
        case .wholeStoreLacksSet: "the whole store of \(hold.client?.rawValue ?? "a client")"
        case .noWholeStore: "no whole store"
        case .keptForHistory: "--keep-days"
        }
    }
}

/// What `vacuum` removed and what holds the rest back.
struct VacuumResult: CommandResult {
    var command = "vacuum"
    var removedSets: Int
    var keptSets: Int
    var heldBackBy: [String]
    var retiredClients: [String]
    var removedWholeStores: Int

    var humanLines: [String] {
        var lines = ["removed \(removedSets) change sets and \(removedWholeStores) old whole stores; kept \(keptSets)"]
        if !heldBackBy.isEmpty { lines.append("  held back by: \(heldBackBy.joined(separator: ", "))") }
        if !retiredClients.isEmpty { lines.append("  retired clients: \(retiredClients.joined(separator: ", "))") }
        return lines
    }
}
