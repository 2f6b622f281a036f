import ArgumentParser
import Foundation
import SyncCore

/// `rollsync change-password`: re-wraps the encryption key with a new password; nothing is
/// re-uploaded and other clients keep working.
struct ChangePasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-password",
        abstract: "Change the encryption password of the remote data (other clients keep working)."
    )

    @OptionGroup var target: SessionOptions

    @Option(
        name: .customLong("new-password-env"),
        help: ArgumentHelp("The environment variable holding the new password (else a prompt on a terminal).", valueName: "name")
    )
    var newPasswordVariable = EncryptionPasswordSource.defaultNewVariable

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await target.withSession { session in
            guard session.settings.encrypted else {
                throw CommandLineError(.usage, "the remote data of \(session.settings.applicationID) is not encrypted; there is no password to change")
            }
            let old = try target.password.source.requiredPassword()
            let new = try EncryptionPasswordSource(variable: newPasswordVariable, prompt: "New encryption password: ").requiredPassword()
            let provider = EncryptingCodecProvider(keyStore: DataKeyFileStore(directory: URL(fileURLWithPath: session.settings.keyCacheDirectory)))
            try await provider.changePassword(of: SyncIdentifier(session.settings.applicationID), in: session.store, from: old, to: new)
            try output.console.emit(PasswordChangeResult(application: session.settings.applicationID))
        }
    }
}

/// What `change-password` did.
struct PasswordChangeResult: CommandResult {
    var command = "change-password"
    var application: String

    var humanLines: [String] {
        ["The password of \(application) changed. Clients that join from now on need the new one."]
    }
}
