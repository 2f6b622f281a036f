import ArgumentParser
import Foundation

/// The whole `rollsync` process: parses the arguments, runs the command, and turns every failure
/// into one line on standard error (plus a hint) and a documented exit code.
public enum RollSyncMain {
    /// Runs `rollsync` with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String]) async -> Int32 {
        do {
            var command = try RollSyncCommand.parseAsRoot(arguments)
            CommandLineLogging.configure(level: outputOptions(of: command)?.requestedLogLevel)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            guard let failure = CommandLineError(classifying: error) else {
                return reportParserError(error)
            }
            var text = "rollsync: error: \(failure.message)\n"
            if let hint = failure.hint { text += "hint: \(hint)\n" }
            Console.writeError(text)
            return failure.kind.exitCode
        }
    }

    /// The command's `OutputOptions` (`--json`, `--verbose`, `--log-level`), if it takes them.
    private static func outputOptions(of command: any ParsableCommand) -> OutputOptions? {
        Mirror(reflecting: command).children.lazy.compactMap { ($0.value as? OptionGroup<OutputOptions>)?.wrappedValue }.first
    }

    /// Help goes to standard output with 0; every other parser failure is a usage error.
    private static func reportParserError(_ error: any Error) -> Int32 {
        let message = RollSyncCommand.fullMessage(for: error)
        if RollSyncCommand.exitCode(for: error) == .success {
            print(message)
            return 0
        }
        Console.writeError("rollsync: \(message)\n")
        return CommandLineError.Kind.usage.exitCode
    }
}
