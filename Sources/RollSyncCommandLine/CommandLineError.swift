import Foundation
import RemoteProtocol
import SyncCore

/// A failure of a `rollsync` command, with the exit code it ends the process with and a hint saying
/// what to do about it. Messages never contain secrets (the errors they come from never do).
public struct CommandLineError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, which fixes the process's exit code.
    public enum Kind: Int32, Sendable, CaseIterable {
        /// The command line is wrong: an unknown option, a malformed URL or identifier, a command
        /// that does not fit the database's state.
        case usage = 1
        /// Synchronisation or the remote storage failed (unreachable, a connection dropped or timed
        /// out in any phase — also during the login —, unexpected data). For connection failures
        /// the backend has already retried; running the command again later may succeed.
        case remote = 2
        /// Authentication failed: the server refused a password, key or access, or a host key is
        /// unknown or changed; or a password is missing. Running again unchanged will not help.
        case authentication = 3
        /// The local database is missing, unreadable, not SQLite, or cannot be synced as asked.
        case localDatabase = 4
        /// The sync succeeded except that some change sets were written with a newer schema (a
        /// column or table this database lacks): they wait, with the later sets of their clients,
        /// until the schema is migrated; everything else was applied and pushed.
        case upgradeRequired = 5
        /// `verify` found problems in the remote document (listed on standard output; with
        /// `--repair`, the safe ones were repaired, but they still count as found).
        case problemsFound = 6

        /// The process exit code.
        public var exitCode: Int32 { rawValue }

        /// One line for `rollsync help` and the README.
        public var meaning: String {
            switch self {
            case .usage: "usage error (unknown option, malformed URL, unknown table)"
            case .remote: "sync or remote storage error (unreachable server, dropped connection: try again)"
            case .authentication: "authentication error (password, key or host key refused)"
            case .localDatabase: "local database problem (missing, not SQLite, not set up, failed migration)"
            case .upgradeRequired: "upgrade required: some change sets need a newer schema (everything else was synced), or upgrade-format waits for clients to run a newer rollsync"
            case .problemsFound: "verify found problems in the remote document"
            }
        }
    }

    /// What kind of failure.
    public var kind: Kind
    /// What went wrong, in one line.
    public var message: String
    /// What to do about it, if there is something to say.
    public var hint: String?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String { message }
}

extension CommandLineError: LocalizedError {
    /// The same sentence as ``description``, so that `localizedDescription` (what apps and
    /// Foundation show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
