import ArgumentParser

/// `rollsync`: keeps a SQLite database in sync through a folder, SFTP or WebDAV.
public struct RollSyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rollsync",
        abstract: "Keep SQLite databases in sync through a folder, SFTP or WebDAV.",
        discussion: """
            Start with `rollsync demo`. For your own database: `rollsync init --db FILE --remote URL --table NAME…`, then `rollsync sync --db FILE` on every machine, or keep `rollsync watch --db FILE` running.

            Schema changes: ALTER TABLE … ADD COLUMN needs nothing; DROP or RENAME COLUMN and table rebuilds go through `rollsync migrate`; `rollsync tables add NAME…` starts syncing more tables.

            Remote URLs: file:///path (or a plain folder path), sftp://user@host:port/path, webdav(s)://host/path, memory://name.

            Secrets never go on the command line. The encryption password comes from ROLLSYNC_PASSWORD (or the variable --password-env names) or a prompt; WebDAV passwords from ROLLSYNC_WEBDAV_PASSWORD, ~/.netrc or a prompt; SFTP logs in with --identity-file (passphrase from ROLLSYNC_SFTP_PASSPHRASE).

            Exit codes:
              0  success
            \(CommandLineError.Kind.allCases.map { "  \($0.exitCode)  \($0.meaning)" }.joined(separator: "\n"))
            """,
        subcommands: [
            DemoCommand.self, InitCommand.self, SyncCommand.self, StatusCommand.self, PushStoreCommand.self, PullStoreCommand.self,
            DocumentsCommand.self, ClientsCommand.self, DeleteClientCommand.self, DeleteDocumentCommand.self, VacuumCommand.self,
            VerifyCommand.self, LogCommand.self, RestoreCommand.self,
            ChangePasswordCommand.self, TablesCommand.self, MigrateCommand.self, WatchCommand.self, UpgradeFormatCommand.self,
        ]
    )

    public init() {}
}
