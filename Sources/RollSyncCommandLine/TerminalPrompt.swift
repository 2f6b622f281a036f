import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for a secret on the terminal with echo off. Only used when standard input is a terminal,
/// so scripts never hang on a prompt.
enum TerminalPrompt {
    /// True if standard input is a terminal (a prompt can be answered).
    static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 }

    /// Prints `prompt` on standard error, reads one line from the terminal without echoing it, and
    /// restores the terminal; `nil` if standard input is not a terminal or ends.
    static func readSecret(_ prompt: String) -> String? {
        guard isAvailable else { return nil }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let haveSettings = tcgetattr(STDIN_FILENO, &saved) == 0
        if haveSettings {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if haveSettings { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}
