import Foundation
import GRDB
import RemoteProtocol
import SyncCore

extension CommandLineError {
    /// Classifies an error of RollingSync or SQLite into a kind, a one-line message and a hint;
    /// `nil` for other errors (those of the argument parser: help, usage).
    init?(classifying error: any Error) {
        if Self.isBusy(error) {
            self.init(
                .localDatabase,
                "the database is busy: another connection (the application, sqlite3, another program) held a lock on it for longer than the busy timeout",
                hint: "run again when it has committed, or wait longer with --busy-timeout SECONDS"
            )
            return
        }
        switch error {
        case let error as CommandLineError:
            self = error
        case let error as SyncError:
            self = Self.classify(error)
        case let error as RemoteStoreError:
            self = Self.classify(error)
        case let error as LocalStoreError:
            self.init(.localDatabase, error.description, hint: Self.hint(for: error))
        case let error as DatabaseError:
            self.init(.localDatabase, "the database failed: \(error.message ?? error.description)")
        default:
            return nil
        }
    }

    /// Whether SQLite gave up waiting for a lock (`SQLITE_BUSY`), directly or under a sync error.
    private static func isBusy(_ error: any Error) -> Bool {
        switch error {
        case let error as DatabaseError: error.resultCode == .SQLITE_BUSY
        case let error as SyncError: error.underlying.map(isBusy) ?? false
        default: false
        }
    }

    private static func classify(_ error: SyncError) -> CommandLineError {
        switch error.code {
        case .upgradeRequired:
            return CommandLineError(
                .upgradeRequired, error.message,
                hint: "migrate this database's schema as the other clients did (`ALTER TABLE … ADD COLUMN`, `rollsync migrate`, `rollsync tables add`), then try again"
            )
        case .wrongPassword:
            return CommandLineError(
                .authentication, error.message,
                hint: "set \(EncryptionPasswordSource.defaultVariable) to the application's password, or run on a terminal to be asked"
            )
        case .passwordRequired:
            return CommandLineError(
                .authentication, error.message,
                hint: "set \(EncryptionPasswordSource.defaultVariable), or run on a terminal to be asked for the password"
            )
        case .invalidIdentifier, .declined:
            return CommandLineError(.usage, error.message)
        case .local:
            return CommandLineError(.localDatabase, error.message, hint: (error.underlying as? LocalStoreError).flatMap(hint(for:)))
        case .remote:
            if let remote = error.underlying as? RemoteStoreError {
                return classify(remote)
            }
            return CommandLineError(.remote, error.message)
        default:
            return CommandLineError(.remote, error.message)
        }
    }

    /// What to do about a local store's refusal.
    static func hint(for error: LocalStoreError) -> String? {
        switch error.reason {
        case .noSuchTable:
            "if \(error.table) was dropped on purpose, stop syncing it with `rollsync tables remove \(error.table) --db FILE`"
        case .unsupportedTable:
            "synced tables need a TEXT or BLOB primary key such as a UUID"
        case .unregisteredTable:
            "`rollsync tables --db FILE` lists the synced tables"
        case .keyChanged:
            "give the key column back its name and type (a synced table's key never changes), or stop syncing the table with `rollsync tables remove`"
        case .referencesBroken:
            "copy every row when rebuilding a table, and keep the keys other tables refer to"
        case .unknownColumn, .upgradeRequired:
            "migrate this database's schema as the other clients did (`ALTER TABLE … ADD COLUMN`, `rollsync migrate`, `rollsync tables add`), then try again"
        @unknown default:
            nil
        }
    }

    private static func classify(_ error: RemoteStoreError) -> CommandLineError {
        let message = error.message
        switch error.code {
        case .hostKeyUnknown:
            return CommandLineError(
                .authentication, message,
                hint: "after checking the fingerprint, run `rollsync init` again with --host-key-fingerprint or --trust-on-first-use"
            )
        case .hostKeyMismatch:
            return CommandLineError(.authentication, message, hint: "the server's key changed: check it with the server's administrator")
        case .authenticationFailed:
            return CommandLineError(
                .authentication, message,
                hint: "check --identity-file (SFTP) or the user and \(RemotePasswordSource.webDAVVariable) (WebDAV)"
            )
        case .permissionDenied:
            return CommandLineError(.authentication, message)
        case .unavailable, .timedOut:
            return CommandLineError(.remote, message, hint: "check that the server runs and can be reached, then try again")
        default:
            return CommandLineError(.remote, message, hint: error.isRetryable ? "this may pass: try again later" : nil)
        }
    }
}
