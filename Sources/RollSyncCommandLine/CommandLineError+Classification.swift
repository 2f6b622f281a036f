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
        case let error as LocalStoreError where error.code == .newerRelease:
            self.init(.upgradeRequired, error.description, hint: "update rollsync to the release that last opened this database (the application's, if it syncs it too)")
        case let error as LocalStoreError:
            self.init(.localDatabase, error.description, hint: Self.hint(for: error))
        case let error as DatabaseError:
            if let missing = MissingDefinitionError(error) {
                self.init(
                    .localDatabase, "the database's schema uses the \(missing.definition), which only the application that made it defines",
                    hint: Self.missingDefinitionHint
                )
            } else {
                self.init(.localDatabase, "the database failed: \(error.message ?? error.description)")
            }
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
        case .clientsNeedUpgrade:
            return CommandLineError(
                .upgradeRequired, error.message,
                hint: "run `rollsync sync` once on each client with this rollsync (or a newer one), or remove clients no longer used with `rollsync delete-client --everywhere`"
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
        case .invalidIdentifier, .declined, .notFound, .alreadyOpen, .closed:
            return CommandLineError(.usage, error.message)
        case .busy:
            return CommandLineError(.remote, error.message, hint: "this passes: run again when the application writes less")
        case .local where error.underlying is MissingDefinitionError || (error.underlying as? DatabaseError).flatMap(MissingDefinitionError.init) != nil:
            return CommandLineError(.localDatabase, error.message, hint: missingDefinitionHint)
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

    /// What to do about a schema that needs an application's own collation or SQL function.
    private static let missingDefinitionHint =
        "rollsync cannot know an application's own definitions: sync this database through the RollingSync library in that application, whose GRDB configuration registers them"

    /// What to do about a local store's refusal.
    static func hint(for error: LocalStoreError) -> String? {
        switch error.code {
        case .noSuchTable:
            "if \(error.table) was dropped on purpose, stop syncing it with `rollsync tables remove \(error.table) --db FILE`"
        case .unsupportedTable:
            "`rollsync init --all-tables` syncs every table that can be synced and lists the others with the reason"
        case .unregisteredTable:
            "`rollsync tables --db FILE` lists the synced tables"
        case .keyChanged:
            "give the key column back its name and type (a synced table's key never changes), or stop syncing the table with `rollsync tables remove`"
        case .referencesBroken:
            "copy every row when rebuilding a table, and keep the keys other tables refer to"
        case .unknownColumn, .upgradeRequired:
            "migrate this database's schema as the other clients did (`ALTER TABLE … ADD COLUMN`, `rollsync migrate`, `rollsync tables add`), then try again"
        default:
            nil
        }
    }

    /// The backend an error of a remote store comes from, for hints that name its own settings.
    enum Backend {
        case sftp, webDAV, s3

        /// The backend named `name` (a ``RemoteStoreError/backend`` or a URL scheme); `nil` for
        /// others (a folder, a third party's).
        init?(named name: String?) {
            switch name?.lowercased() {
            case "sftp": self = .sftp
            case "webdav", "webdavs": self = .webDAV
            case "s3": self = .s3
            default: return nil
            }
        }
    }

    /// Classifies a remote store's error by the question "would a retry help?": connection
    /// failures (`unavailable`, `timedOut`, `rateLimited`) are remote errors (exit 2) to run again;
    /// only a definite refusal of credentials, access or a host key is an authentication error
    /// (exit 3). Hints name the settings of the backend the error came from.
    private static func classify(_ error: RemoteStoreError) -> CommandLineError {
        let message = error.message
        let backend = Backend(named: error.backend)
        switch error.code {
        case .hostKeyUnknown where backend == .webDAV || backend == .s3:
            return CommandLineError(
                .authentication, message,
                hint: "the server's TLS certificate is not signed by an authority this system trusts: add the authority to the system's store (update-ca-certificates), or use the name the certificate was issued for"
            )
        case .hostKeyUnknown:
            return CommandLineError(
                .authentication, message,
                hint: "after checking the fingerprint, run `rollsync init` again with --host-key-fingerprint or --trust-on-first-use"
            )
        case .hostKeyMismatch:
            return CommandLineError(
                .authentication, message,
                hint: "the server's key changed: check the new key with the server's administrator, then remove the old one (as said above) or run `rollsync init` again with --host-key-fingerprint"
            )
        case .authenticationFailed:
            return CommandLineError(.authentication, message, hint: authenticationHint(for: backend))
        case .permissionDenied:
            return CommandLineError(.authentication, message, hint: permissionHint(for: backend))
        case .unavailable, .timedOut:
            return CommandLineError(.remote, message, hint: unreachableHint(for: backend, timedOut: error.code == .timedOut))
        default:
            return CommandLineError(.remote, message, hint: error.isRetryable ? "this may pass: try again later" : nil)
        }
    }

    /// Where the secrets of the backend of URL scheme `scheme` come from, for a URL that carried a
    /// password.
    static func secretsHint(forScheme scheme: String?) -> String {
        switch Backend(named: scheme) {
        case .s3: "remove the key from the URL: S3 keys come from \(s3CredentialSources)"
        case .sftp: "remove it from the URL: SFTP logs in with --identity-file (its passphrase from \(RemotePasswordSource.sftpPassphraseVariable)) or a password from \(RemotePasswordSource.sftpPasswordVariable)"
        case .webDAV: "remove it from the URL and set \(RemotePasswordSource.webDAVVariable) (or use ~/.netrc, or answer the prompt)"
        case nil: "remove it from the URL; \(scheme ?? "this") remotes take their secrets from the environment"
        }
    }

    /// Where S3 credentials come from.
    private static let s3CredentialSources = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else the profile AWS_PROFILE (or default) in ~/.aws/credentials or ~/.aws/config"

    /// What to check for a refused or missing S3 key.
    private static let s3CredentialsHint = "check the access key: \(s3CredentialSources)"

    /// What to check when the server refused the credentials.
    private static func authenticationHint(for backend: Backend?) -> String {
        let sftp = "check --identity-file (the key must be in the account's authorized_keys; its passphrase comes from \(RemotePasswordSource.sftpPassphraseVariable)), the password in \(RemotePasswordSource.sftpPasswordVariable) and the user in the sftp:// URL"
        let webDAV = "check --user and the password: \(RemotePasswordSource.webDAVVariable) (or the variable --webdav-password-env names), else ~/.netrc"
        switch backend {
        case .sftp: return sftp
        case .webDAV: return webDAV
        case .s3: return s3CredentialsHint
        case nil: return "SFTP: \(sftp); WebDAV: \(webDAV)"
        }
    }

    /// What to check when the server refused access to a path.
    private static func permissionHint(for backend: Backend?) -> String? {
        switch backend {
        case .sftp: "the SSH account may not use this folder on the server: check the path in the sftp:// URL and its owner and permissions"
        case .webDAV: "the WebDAV server does not let this user use this location: check --user and the server's access rules"
        case .s3: "the access key's policy does not allow this bucket or prefix: check its IAM or bucket policy (s3:ListBucket, s3:GetObject, s3:PutObject, s3:DeleteObject)"
        case nil: nil
        }
    }

    /// What to check when the server could not be reached, dropped the connection or did not
    /// answer in time; the backend retried such failures first.
    private static func unreachableHint(for backend: Backend?, timedOut: Bool) -> String {
        let what = timedOut ? "did not answer in time" : "could not be reached or dropped the connection"
        switch backend {
        case .sftp:
            return "the SSH server \(what), also when rollsync tried again (it may be restarting or overloaded: sshd's MaxStartups); check that sshd runs and accepts connections on the sftp:// URL's host and port, then run again"
        case .webDAV:
            return "the WebDAV server \(what), also when rollsync tried again; check that it runs and accepts connections on the URL's host and port (and any proxy), then run again"
        case .s3:
            return "the S3 endpoint \(what), also when rollsync tried again; check endpoint= and region= in the s3:// URL (or AWS_ENDPOINT_URL, AWS_REGION), then run again"
        case nil:
            return "check that the server runs and can be reached, then try again"
        }
    }
}
