import ArgumentParser
import Foundation

/// The whole `rollsync` process: parses the arguments, runs the command, and turns every failure
/// into one line on standard error (plus a hint) and a documented exit code.
public enum RollSyncMain {
    /// Runs `rollsync` with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String]) async -> Int32 {
        let command: any ParsableCommand
        do {
            command = try RollSyncCommand.parseAsRoot(arguments)
        } catch {
            return reportParseError(error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
            return 0
        } catch let error as ExitCode {
            return error.rawValue
        } catch {
            let failure = CommandLineError(classifying: error)
            var text = "rollsync: error: \(failure.message)\n"
            if let hint = failure.hint { text += "hint: \(hint)\n" }
            Console.writeError(text)
            return failure.kind.exitCode
        }
    }

    /// Help and version go to standard output with 0; every other parse failure is a usage error.
    private static func reportParseError(_ error: any Error) -> Int32 {
        let message = RollSyncCommand.fullMessage(for: error)
        if RollSyncCommand.exitCode(for: error) == .success {
            print(message)
            return 0
        }
        Console.writeError("rollsync: \(message)\n")
        return CommandLineError.Kind.usage.exitCode
    }
}
