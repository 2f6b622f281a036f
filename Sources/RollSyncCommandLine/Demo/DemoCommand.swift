import ArgumentParser
import Foundation

/// `rollsync demo`: the guided tour, on a folder remote in a scratch directory; needs no server.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Watch three clients of a notes app sync through a folder (needs no server; takes seconds)."
    )

    @Flag(name: .long, help: "Keep the scratch directory (databases and shared folder) and print where it is.")
    var keep = false

    @Option(name: .long, help: ArgumentHelp("Where to create the scratch directory (default: the system temporary directory).", valueName: "dir"))
    var scratchParent: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let parent = scratchParent.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        let directory = parent.appendingPathComponent("rollsync-demo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let console = output.console
        var demo = NotesDemo(directory: directory, console: console)
        let result: DemoResult
        do {
            result = try await demo.run()
        } catch {
            if !keep { try? FileManager.default.removeItem(at: directory) }
            throw error
        }
        if keep {
            console.say("Kept: \(directory.path) (remote/ is the shared folder; open the .sqlite files with sqlite3)")
        } else {
            try FileManager.default.removeItem(at: directory)
        }
        try console.emit(result)
        guard result.converged else {
            throw CommandLineError(.remote, "the demo's clients did not converge")
        }
    }
}
