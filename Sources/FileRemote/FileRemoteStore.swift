import Foundation
import RemoteProtocol

/// A ``RemoteStore`` in a folder of the local file system (or of a mounted share), opened from a
/// `file:///absolute/path` URL.
///
/// ## Guarantees
/// - **No partial files.** Uploads and copies write to a temporary name in the target's directory
///   (``RemotePath/reservedTemporaryPrefix`` followed by a UUID), flush it with `fsync`, rename it
///   over the target (atomic on POSIX file systems, so readers see the old or the new content,
///   never none) and `fsync` the directory. Downloads do the same beside the local file.
///   A failed or cancelled transfer removes its temporary file.
/// - **Confinement.** Paths are opened component by component from the root without following
///   symbolic links; a link is followed only after its real target has been checked to lie inside
///   the root. A link that leads outside is refused with ``RemoteStoreError/Code/permissionDenied``
///   and left out of ``list(_:)``; ``delete(_:)`` removes a link itself, never its target. The root
///   itself may be a link: it is resolved once, when the store is created.
/// - **Streaming.** Transfers move 1 MiB chunks and check for cancellation between chunks; no
///   file is ever held in memory whole.
/// - **Errors.** `errno` values map to shared codes (`ENOENT` → ``RemoteStoreError/Code/notFound``,
///   `EEXIST` → ``RemoteStoreError/Code/alreadyExists``, `ENOTDIR` →
///   ``RemoteStoreError/Code/notADirectory``, `EISDIR` → ``RemoteStoreError/Code/isADirectory``,
///   `EACCES`/`EPERM`/`EROFS` → ``RemoteStoreError/Code/permissionDenied``, `ENOSPC`/`EDQUOT` →
///   ``RemoteStoreError/Code/insufficientStorage``, anything else ``RemoteStoreError/Code/io``),
///   with the `POSIXError` as ``RemoteStoreError/underlying``. Failures of the caller's local
///   file are ``RemoteStoreError/Code/localFile``.
///
/// ## Threads
/// File-system calls block, so they never run on Swift's cooperative pool: they run on a few
/// dedicated threads shared by all stores of the process, in small units (see ``FileIOThreads``).
///
/// Entries that no ``RemotePath`` can name exactly (names that are not valid UTF-8 or not in
/// Unicode NFC), FIFOs, sockets and devices are never listed.
public struct FileRemoteStore: RemoteStore {
    /// The real location of the store's root folder: absolute, with every symbolic link resolved.
    public let root: URL

    let fileSystem: FileSystemRoot
    let threads: FileIOThreads

    /// Opens the folder at `root`, a `file:` URL with an absolute path and no host other than
    /// `localhost`. The folder must exist: a missing folder is an error rather than being created,
    /// so that an unmounted share is never silently replaced by an empty local folder.
    ///
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/unsupported`` for a URL
    ///   that is not such a `file:` URL (the message says why), ``RemoteStoreError/Code/notFound``
    ///   if the folder does not exist, ``RemoteStoreError/Code/notADirectory`` if it is a file.
    public init(root: URL) throws {
        try self.init(root: root, threads: .shared)
    }

    /// Opens the folder at `path` (relative to the current directory unless absolute), as
    /// ``init(root:)`` does: the folder must exist.
    public init(path: String) throws {
        try self.init(root: URL(fileURLWithPath: path, isDirectory: true))
    }

    /// Opens the folder at `root` with its own I/O threads (tests use this to control which
    /// calls share a thread).
    init(root: URL, threads: FileIOThreads) throws {
        let path = try Self.rootPath(of: root)
        fileSystem = try FileSystemRoot(resolving: path)
        self.root = URL(filePath: fileSystem.path, directoryHint: .isDirectory)
        self.threads = threads
    }

    /// Server-side copy (the bytes never leave the file system), atomic replacement (`rename`),
    /// and modification times to the microsecond: the file system keeps nanoseconds, but a `Date`
    /// (a `Double` of seconds since 1970) holds about a quarter of a microsecond today.
    public var capabilities: RemoteCapabilities {
        RemoteCapabilities(
            serverSideCopy: true, atomicReplace: true, modificationTimePrecision: .microseconds(1), exclusiveCreate: true
        )
    }

    /// Describes the file or directory at `path`, following a symbolic link that stays inside the
    /// root; `nil` if nothing is there, if a file stands on the way, or for a dangling link.
    ///
    /// - Throws: ``RemoteStoreError/Code/permissionDenied`` for a link that leads outside the root.
    public func exists(_ path: RemotePath) async throws -> RemoteItem? {
        try Task.checkCancellation()
        return try await threads.run { _ in try fileSystem.item(at: path) }
    }

    /// Creates the directory at `path` and any missing ones above it (each made durable with an
    /// `fsync` of its parent).
    ///
    /// - Throws: ``RemoteStoreError/Code/alreadyExists`` if a file stands at `path`,
    ///   ``RemoteStoreError/Code/notADirectory`` if one stands above it.
    public func createDirectory(at path: RemotePath) async throws {
        try Task.checkCancellation()
        try await threads.run { _ in try fileSystem.createDirectory(at: path) }
    }

    /// Stores the content of `localFile` at `path` through a temporary file renamed into place.
    ///
    /// - Throws: ``RemoteStoreError/Code/localFile`` if `localFile` cannot be read (nothing changes
    ///   in the store), ``RemoteStoreError/Code/notFound`` if the parent directory is missing,
    ///   ``RemoteStoreError/Code/notADirectory`` if a file stands above `path`,
    ///   ``RemoteStoreError/Code/isADirectory`` if a directory stands at `path`,
    ///   ``RemoteStoreError/Code/insufficientStorage`` when the disk or quota is full,
    ///   `CancellationError` when cancelled; in every case the previous content stays.
    public func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        try Task.checkCancellation()
        let transfer = try await threads.run { _ in try fileSystem.prepareUpload(from: localFile, to: path) }
        try await transfer.run(on: threads)
    }

    /// Like ``upload(contentsOf:to:)``, but the finished temporary file is hard-linked to `path`
    /// (`linkat`, which fails if anything has that name) instead of renamed over it.
    ///
    /// - Throws: ``RemoteStoreError/Code/alreadyExists`` if a file or directory stands at `path`;
    ///   otherwise what ``upload(contentsOf:to:)`` throws. A file system without hard links
    ///   reports its `linkat` error (`EPERM`: `permissionDenied`).
    public func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        try Task.checkCancellation()
        var transfer: FileTransfer
        do {
            transfer = try await threads.run { _ in try fileSystem.prepareUpload(from: localFile, to: path) }
        } catch let error as RemoteStoreError where error.code == .isADirectory {
            throw RemoteStoreError(.alreadyExists, path: path, message: "a directory stands at '\(path)'")
        }
        transfer.exclusive = true
        try await transfer.run(on: threads)
    }

    /// Writes the file at `path` to `localFile` through a temporary file beside it, renamed into
    /// place when complete.
    ///
    /// - Throws: ``RemoteStoreError/Code/notFound`` if there is no file (or only a dangling link),
    ///   ``RemoteStoreError/Code/isADirectory`` for a directory, ``RemoteStoreError/Code/localFile``
    ///   if the local folder is missing or not writable, `CancellationError` when cancelled; in
    ///   every case `localFile` is left as it was.
    public func download(_ path: RemotePath, to localFile: URL) async throws {
        try Task.checkCancellation()
        let transfer = try await threads.run { _ in try fileSystem.prepareDownload(of: path, to: localFile) }
        try await transfer.run(on: threads)
    }

    /// Copies the file at `source` to `destination` inside the file system (server-side), with
    /// the same temporary-file-and-rename guarantee as ``upload(contentsOf:to:)``.
    ///
    /// - Throws: ``RemoteStoreError/Code/notFound`` if `source` or the destination's parent is
    ///   missing, ``RemoteStoreError/Code/isADirectory`` if either is a directory.
    public func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        try Task.checkCancellation()
        let transfer = try await threads.run { _ in try fileSystem.prepareCopy(of: source, to: destination) }
        try await transfer.run(on: threads)
    }

    /// Lists the files and directories directly inside `directory`; links inside the root appear
    /// as their targets, links that lead outside and temporary files are left out.
    ///
    /// - Throws: ``RemoteStoreError/Code/notFound`` for a missing directory,
    ///   ``RemoteStoreError/Code/notADirectory`` for a file.
    public func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        try Task.checkCancellation()
        return try await threads.run { _ in try fileSystem.items(in: directory) }
    }

    /// Deletes the file, link or directory tree at `path` without following any link inside it;
    /// a missing path is success.
    ///
    /// - Throws: ``RemoteStoreError/Code/invalidPath`` for the root.
    public func delete(_ path: RemotePath) async throws {
        try Task.checkCancellation()
        try await threads.run { _ in try fileSystem.remove(path) }
    }
}
