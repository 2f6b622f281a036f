import ArgumentParser
import Foundation
import SyncCore

/// `rollsync upgrade-format`: moves the application's remote data to the newest format.
struct UpgradeFormatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade-format",
        abstract: "Move the application's remote data to the newest remote format.",
        discussion: """
            Format 2 makes a sync with nothing new cost one listing and compresses change sets. The upgrade waits (exit \
            code 5, naming them) for every client whose last sync was made by a build that cannot read format 2: sync each \
            with a current rollsync, or remove those no longer used with `rollsync delete-client --everywhere`. It is safe to \
            interrupt and to run again; on a current application it changes nothing.
            """
    )

    @OptionGroup var target: SessionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            let report = try await session.application.upgradeFormat()
            try output.console.emit(
                FormatUpgradeResult(
                    application: session.settings.applicationID, previousVersion: report.previousVersion, version: report.version,
                    upgraded: report.upgraded, documents: report.documents.map(\.rawValue)
                )
            )
        }
    }
}

/// What `upgrade-format` shows.
struct FormatUpgradeResult: CommandResult {
    var command = "upgrade-format"
    var application: String
    var previousVersion: Int
    var version: Int
    var upgraded: Bool
    var documents: [String]

    var humanLines: [String] {
        upgraded
            ? ["upgraded \(application) from remote format \(previousVersion) to \(version) (\(documents.count) document(s))"]
            : ["\(application) already has remote format \(version): nothing to do"]
    }
}
