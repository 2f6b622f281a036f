import Logging
import Synchronization

/// Where RollingSync's log goes when `rollsync` runs: standard error, at the level `--verbose`
/// (`debug`) or `--log-level LEVEL` asks for, and nowhere without them (standard output carries
/// the results, JSON lines with `--json`). The library never logs a secret; neither does this.
enum CommandLineLogging {
    /// The level asked for by the command being run, `nil` for no log.
    private static let level = Mutex<Logger.Level?>(nil)
    private static let bootstrapped = Mutex(false)

    /// Sets the level for the loggers made from now on; installs the handler the first time.
    static func configure(level: Logger.Level?) {
        Self.level.withLock { $0 = level }
        let first = bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            guard let level = Self.level.withLock({ $0 }) else { return SwiftLogNoOpLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The logger the commands give RollingSync's managers.
    static var logger: Logger { Logger(label: "rollsync") }
}
