import Foundation
import RemoteProtocol
import RemoteTransportSupport

/// A ``RemoteProtocol/RemoteStore`` on an SFTP server, through libssh2: `sftp://user@host:port/path`.
///
/// ```swift
/// var configuration = SFTPRemoteStore.Configuration(host: "sync.example.com", user: "alice", root: .absolute("/srv/rollsync"))
/// configuration.identityFile = "~/.ssh/id_ed25519"
/// configuration.passphrase = keyPassphrase
/// let store = try await SFTPRemoteStore(configuration: configuration)
///
/// // The same from a URL, settings and secrets (what the registry does):
/// let sameStore = try await SFTPRemoteStore(configuration: RemoteStoreConfiguration(
///     url: URL(string: "sftp://alice@sync.example.com/srv/rollsync")!,
///     settings: ["identity-file": "~/.ssh/id_ed25519"],
///     secrets: [SFTPRemoteStore.SecretName.passphrase: keyPassphrase]))
/// ```
///
/// - **URL**: the path is absolute on the server; `/~/path`, or no path, is relative to the login
///   directory. The root directory is created (with its parents) when the store opens.
/// - **Settings and secrets**: ``Configuration``; in the URL form see `Docs/Backends/SFTP.md`
///   (`identity-file`, `known-hosts`, `host-key-fingerprint`, `trust-on-first-use`, `ssh-agent`,
///   `timeout`, `keepalive-interval`, `connections`; secrets ``SecretName``).
/// - **Host keys** are verified before any credential is sent: against `host-key-fingerprint`
///   when set, else the `known_hosts` file. An unknown host throws `hostKeyUnknown` (the message
///   prints the fingerprint and how to trust it); a changed key always throws `hostKeyMismatch`.
/// - **Capabilities**: no server-side copy (libssh2 1.10 cannot send OpenSSH's copy or hardlink
///   extensions; copies stream through the client), **no atomic replace** (SFTP v3 renames cannot
///   overwrite and libssh2 1.10 lacks `posix-rename@openssh.com`: a replaced file is unlinked, then
///   the finished temporary file renamed, so a reader may briefly find no file, never a partial
///   one), modification times to the second.
/// - **Runtime**: every libssh2 call runs on a dedicated thread per connection (an actor on a
///   ``RemoteTransportSupport/DedicatedThreadExecutor``), never on Swift's cooperative pool. Up to
///   `connections` SSH connections (default 4) serve parallel calls. Every call is idempotent, so a
///   call that fails because the connection dropped or timed out is retried on a fresh connection
///   under ``retryPolicy``. Transfers stream through 1,920,000-byte buffers (64 SFTP packets, which
///   libssh2 pipelines) and stop at task cancellation, removing the remote temporary file.
public final class SFTPRemoteStore: RemoteStore {
    /// No server-side copy, no atomic replace, 1-second modification times.
    public let capabilities = RemoteCapabilities(
        serverSideCopy: false,
        atomicReplace: false,
        modificationTimePrecision: .seconds(1),
        exclusiveCreate: true
    )

    /// The configuration the store was opened with, checked: the fingerprint normalised, `~/`
    /// expanded.
    public let configuration: Configuration

    private let pool: SFTPConnectionPool

    /// Connects to the server of `configuration`, verifies its host key, logs in, and creates the
    /// root directory if it is missing.
    ///
    /// - Throws: ``RemoteProtocol/RemoteStoreError``: `unsupported` for an invalid configuration
    ///   (see ``Configuration``); `hostKeyUnknown`, `hostKeyMismatch`, `authenticationFailed`;
    ///   `unavailable` or `timedOut` if the server cannot be reached (after the retries of
    ///   ``Configuration/retryPolicy``); `alreadyExists`/`notADirectory` if a file is in the way
    ///   of the root directory.
    public init(configuration: Configuration) async throws {
        self.configuration = try configuration.validated(environment: ProcessInfo.processInfo.environment)
        self.pool = SFTPConnectionPool(configuration: self.configuration)
        try await withConnection { try await $0.createDirectory(.root) }
    }

    /// How calls that failed because the connection dropped or timed out are retried.
    public var retryPolicy: RetryPolicy { configuration.retryPolicy }

    /// Where the store is, as an `sftp://user@host:port/path` URL (`/~/path` for a root in the
    /// login directory), for messages.
    public var url: URL { configuration.url }

    public func exists(_ path: RemotePath) async throws -> RemoteItem? {
        if path.isRoot { return RemoteItem(path: .root, kind: .directory) }
        return try await withConnection { try await $0.item(at: path) }
    }

    public func createDirectory(at path: RemotePath) async throws {
        try await withConnection { try await $0.createDirectory(path) }
    }

    public func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        try await withConnection { try await $0.upload(from: localFile, to: path) }
    }

    /// Uploads to a temporary name, then renames it onto `path` while holding a claim directory
    /// beside it, so that of racing creators one wins even on servers whose rename overwrites
    /// (`alreadyExists` for the others, or when anything stands at `path`).
    public func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        try await withConnection { try await $0.createExclusively(from: localFile, at: path) }
    }

    public func download(_ path: RemotePath, to localFile: URL) async throws {
        try await withConnection { try await $0.download(path, to: localFile) }
    }

    /// Streams the file through the client (download to a local scratch file, then upload), since
    /// libssh2 1.10 cannot ask OpenSSH for a server-side copy.
    public func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        if source == destination {
            guard let item = try await exists(source) else {
                throw RemoteStoreError(.notFound, path: source, message: "'\(source)' does not exist")
            }
            if item.isDirectory {
                throw RemoteStoreError(.isADirectory, path: source, message: "'\(source)' is a directory")
            }
            return
        }
        try await copyThroughClient(source, to: destination)
    }

    public func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        try await withConnection { try await $0.list(directory) }
    }

    public func delete(_ path: RemotePath) async throws {
        try await withConnection { try await $0.delete(path) }
    }

    /// The temporary files directly inside `directory` (uploads in flight or left by interrupted
    /// ones), with sizes and modification times at SFTP's 1-second precision.
    public func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] {
        try await withConnection { try await $0.temporaryFiles(in: directory) }
    }

    /// Deletes one temporary file; a missing one is success.
    public func deleteTemporaryFile(_ file: TemporaryFile) async throws {
        try await withConnection { try await $0.deleteTemporaryFile(file) }
    }

    /// Disconnects every connection. Calls made afterwards throw `unsupported`.
    public func close() async {
        await pool.close()
    }

    /// Runs `body` on a pooled connection, retrying on a fresh connection when the connection
    /// dropped or timed out (every store call is idempotent).
    private func withConnection<Result: Sendable>(
        _ body: @Sendable (SFTPConnection) async throws -> Result
    ) async throws -> Result {
        try await retryPolicy.run {
            let connection = try await pool.checkOut()
            do {
                let result = try await body(connection)
                await pool.checkIn(connection)
                return result
            } catch {
                await pool.checkIn(connection)
                throw error
            }
        }
    }
}
