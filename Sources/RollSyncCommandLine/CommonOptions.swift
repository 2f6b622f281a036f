import ArgumentParser
import Foundation
import Logging

/// `--db FILE`: the SQLite database a command works on.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite database file.", valueName: "file"))
    var db: String

    @Option(
        name: .customLong("busy-timeout"),
        help: ArgumentHelp(
            "How long to wait, in seconds, while the application or another rollsync holds the database (default 30).",
            valueName: "seconds"
        )
    )
    var busyTimeout: Double = 30

    func validate() throws {
        guard busyTimeout >= 0, busyTimeout.isFinite else {
            throw ValidationError("--busy-timeout takes a number of seconds, 0 or more")
        }
    }
}

/// `--db FILE` and `--password-env NAME`: what the commands that work on a configured database take.
struct SessionOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var password: PasswordOptions

    /// The database's path.
    var path: String { database.db }

    /// Opens the configured database and its remote store, runs `body` with them, and closes
    /// them whether `body` returned or threw (see ``SyncSession/close()``).
    func withSession<Result>(_ body: (SyncSession) async throws -> Result) async throws -> Result {
        let session = try await SyncSession.open(
            path: database.db, busyTimeout: database.busyTimeout, password: password.source, environment: ProcessInfo.processInfo.environment
        )
        return try await closing(after: { try await body(session) }, with: { await session.close() })
    }
}

/// `--json`: one JSON object per result on standard output, no progress; `--verbose` and
/// `--log-level`: RollingSync's log on standard error.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object per result, for scripts; no progress display.")
    var json = false

    @Flag(name: .long, help: "Log what RollingSync does (phases, requests, decisions) on standard error; the same as --log-level debug.")
    var verbose = false

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("Log on standard error from this level up: trace, debug, info, notice, warning, error, critical.", valueName: "level")
    )
    var logLevel: String?

    /// The log level asked for, `nil` for no log.
    var requestedLogLevel: Logger.Level? {
        logLevel.flatMap(Logger.Level.init(rawValue:)) ?? (verbose ? .debug : nil)
    }

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level takes one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The console these options ask for.
    var console: Console { Console(json: json) }
}

/// `--password-env NAME`: where the encryption password comes from.
struct PasswordOptions: ParsableArguments {
    @Option(
        name: .customLong("password-env"),
        help: ArgumentHelp("The environment variable holding the encryption password (else a prompt on a terminal).", valueName: "name")
    )
    var passwordVariable = EncryptionPasswordSource.defaultVariable

    /// The password source.
    var source: EncryptionPasswordSource {
        EncryptionPasswordSource(variable: passwordVariable, prompt: "Encryption password: ")
    }
}

/// The backends' non-secret options of `init`.
struct RemoteOptions: ParsableArguments {
    @Option(name: .customLong("identity-file"), help: ArgumentHelp("SFTP: the private key to log in with.", valueName: "file"))
    var identityFile: String?

    @Option(name: .customLong("known-hosts"), help: ArgumentHelp("SFTP: the known_hosts file (default ~/.ssh/known_hosts).", valueName: "file"))
    var knownHosts: String?

    @Option(name: .customLong("host-key-fingerprint"), help: ArgumentHelp("SFTP: trust exactly this host key (SHA256:…).", valueName: "fingerprint"))
    var hostKeyFingerprint: String?

    @Flag(name: .customLong("trust-on-first-use"), help: "SFTP: trust an unknown host key and record it in known_hosts.")
    var trustOnFirstUse = false

    @Option(name: .long, help: ArgumentHelp("WebDAV: the user name (the password never goes on the command line).", valueName: "name"))
    var user: String?

    @Option(
        name: .customLong("webdav-password-env"),
        help: ArgumentHelp("WebDAV: the environment variable holding the password (default ROLLSYNC_WEBDAV_PASSWORD).", valueName: "name")
    )
    var webDAVPasswordVariable: String?

    /// The settings these options give, paths made absolute against `directory`.
    func settings(relativeTo directory: String) -> [String: String] {
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") || path.hasPrefix("~") ? path : directory + "/" + path
        }
        var settings: [String: String] = [:]
        settings["identity-file"] = identityFile.map(absolute)
        settings["known-hosts"] = knownHosts.map(absolute)
        settings["host-key-fingerprint"] = hostKeyFingerprint
        if trustOnFirstUse { settings["trust-on-first-use"] = "true" }
        settings["user"] = user
        settings[RemoteLocation.passwordVariableSetting] = webDAVPasswordVariable
        return settings
    }
}
