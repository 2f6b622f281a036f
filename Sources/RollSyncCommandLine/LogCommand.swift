import ArgumentParser
import Foundation
import SyncCore

/// `rollsync log`: the document's history, one change set per entry, oldest first.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List the document's change sets: who, when, and how many rows of which tables (--rows: which rows).",
        discussion: """
            Time and client filters are decided from file names; every matching change set is downloaded once. \
            An asterisk marks sets this database has applied or pushed.
            """
    )

    @OptionGroup var target: SessionOptions

    @Flag(name: .long, help: "Also list the rows and columns each change set touches.")
    var rows = false

    @Option(name: .long, help: ArgumentHelp("Only change sets at or after this time.", valueName: "time"))
    var since: Moment?

    @Option(name: .long, help: ArgumentHelp("Only change sets at or before this time.", valueName: "time"))
    var until: Moment?

    @Option(name: .long, help: ArgumentHelp("Only this client's change sets (repeatable).", valueName: "client"))
    var client: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only change sets that change this table.", valueName: "table"))
    var table: String?

    @Option(name: .long, help: ArgumentHelp("Only change sets that change the row with this key (a BLOB key as x'0a1b…').", valueName: "key"))
    var key: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let query = HistoryQuery(
            since: since?.date, until: until?.date, clients: Set(try client.map { try SyncIdentifier($0) }), table: table, key: key,
            includeRows: rows
        )
        try await target.withSession { session in
            let history = try await session.showingProgress(quiet: output.json) { try await $0.history(matching: query) }
            try output.console.emit(LogResult(document: session.settings.documentID, history: history))
        }
    }
}

/// What `log` found.
struct LogResult: CommandResult {
    var command = "log"
    var document: String
    var history: DocumentHistory

    var humanLines: [String] {
        var lines: [String] = []
        for vacuumed in history.vacuumed {
            lines.append("(\(vacuumed.client)'s change sets up to \(vacuumed.through.historyTimestamp) were removed by vacuum)")
        }
        for entry in history.entries {
            let who = entry.clientDescription.map { "\(entry.client) (\($0))" } ?? entry.client
            lines.append("\(entry.appliedHere == true ? "*" : " ") \(entry.time.historyTimestamp)  \(who)  set \(entry.setID)  \(entry.changeCount) changes")
            for counts in entry.tables {
                lines.append("    \(counts.table): \(counts.inserted) inserted, \(counts.updated) updated, \(counts.deleted) deleted")
            }
            for row in entry.rows ?? [] {
                lines.append("      \(row.operation) \(row.table) \(row.key)\(row.columns.isEmpty ? "" : ": " + row.columns.joined(separator: ", "))")
            }
        }
        for unreadable in history.unreadable {
            lines.append("unreadable: \(unreadable.path): \(unreadable.reason)")
        }
        if history.entries.isEmpty { lines.append("no change sets match") }
        return lines
    }
}
