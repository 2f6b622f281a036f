import Foundation
import SyncCore

/// Where the encryption password comes from: an environment variable, else a prompt with echo off
/// when standard input is a terminal. Never from the command line, never stored, never printed.
struct EncryptionPasswordSource: Sendable {
    /// The variable read unless another is named with `--password-env`.
    static let defaultVariable = "ROLLSYNC_PASSWORD"
    /// The variable `change-password` reads the new password from unless another is named.
    static let defaultNewVariable = "ROLLSYNC_NEW_PASSWORD"

    /// The environment variable's name.
    var variable: String
    /// What the prompt asks for.
    var prompt: String
    var environment: [String: String] = ProcessInfo.processInfo.environment
    /// A password already obtained, returned without asking again.
    var obtained: EncryptionPassword?

    /// The password, or `nil` if the variable is unset and no terminal can be asked.
    /// - Throws: ``CommandLineError`` (usage) for an empty password.
    func password() throws -> EncryptionPassword? {
        if let obtained { return obtained }
        guard let text = environment[variable] ?? TerminalPrompt.readSecret(prompt) else { return nil }
        guard let password = EncryptionPassword(text) else {
            throw CommandLineError(.usage, "the encryption password must not be empty")
        }
        return password
    }

    /// Like ``password()``, but a missing password is an error naming the variable.
    func requiredPassword() throws -> EncryptionPassword {
        guard let password = try password() else {
            throw CommandLineError(
                .authentication, "no encryption password was given",
                hint: "set \(variable), or run on a terminal to be asked"
            )
        }
        return password
    }
}
