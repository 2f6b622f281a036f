import Foundation

/// Dumb remote storage that RollingSync synchronises through: a folder, an SFTP or WebDAV server,
/// an in-memory fake, or anything a third party plugs in.
///
/// Every synchronisation operation of RollingSync is written once against these seven primitives.
/// A backend implements only this protocol, then proves itself with the `RemoteStoreConformance`
/// suite, which has one check for every rule written below, named in parentheses after the rule
/// (`RemoteStoreConformance.Check` has a case of that name).
///
/// # Implementation requirements
///
/// - The store is `Sendable` and may be called from many tasks at once; calls on distinct paths
///   must not interfere (`concurrentUploadsOfDistinctFiles`, `concurrentListsWhileUploading`),
///   and concurrent deletes of the same path all succeed (`concurrentDeletesOfSamePathSucceed`).
/// - **Shared storage**: two stores opened from the same configuration (two connections, two
///   processes, two clients) see the same files: what one writes, replaces, creates or deletes,
///   the other sees at its next call (`secondStoreSeesWritesAndDeletes`). A store never serves
///   its own writes from a private cache.
/// - Paths are relative to the store's root (fixed at construction, for example the folder of a
///   `file://` URL). A store never reads or writes outside its root, and follows no symbolic link
///   that leads out of it.
/// - The only errors that escape are ``RemoteStoreError`` and `CancellationError`
///   (`onlyRemoteStoreErrorsEscape`).
/// - **Cancellation**: when the calling task is cancelled, a long transfer stops soon and throws
///   `CancellationError` (a call that completes despite the cancellation is correct too). A
///   cancelled upload leaves the previous content of the target (or its absence) untouched and no
///   temporary file visible to ``list(_:)`` (`cancelledUploadLeavesPreviousContent`); a cancelled
///   download leaves no file at the local destination (`cancelledDownloadLeavesNoLocalFile`).
/// - **Partial failure**: an operation that fails part-way may leave work done (some children of a
///   deleted tree gone, intermediate directories created), but never a partial *file* at a target
///   path, and repeating the same call completes it.
/// - Temporary files use names starting with ``RemotePath/reservedTemporaryPrefix``, which
///   ``RemotePath`` refuses for ordinary paths and ``list(_:)`` never returns.
/// - **Names**: every name ``RemotePath`` accepts works as a file and as a directory name, through
///   every primitive: spaces, `? # % & + ' "`, any Unicode (`hostileNamesRoundTrip`,
///   `hostileDirectoryNamesRoundTrip`), leading dots (`leadingDotNamesRoundTrip`), and names of
///   200 characters (`longNamesRoundTrip`). Names are NFC: a name typed in NFD reaches the same
///   file, and ``list(_:)`` returns it in NFC (`unicodeNormalizationFormsNameTheSameFile`).
///   Names are case-sensitive: `A` and `a` are two files (`namesDifferingOnlyInCaseAreDistinct`);
///   a backend on case-insensitive storage must encode names so that they stay distinct.
/// - Nothing secret (passwords, keys) appears in errors or logs.
///
/// Requirements have no default arguments; the short forms (``write(_:to:)``, ``read(_:)``) live
/// in an extension. Capabilities beyond the common contract are declared in ``capabilities``.
public protocol RemoteStore: Sendable {
    /// What this store can do beyond the common contract.
    var capabilities: RemoteCapabilities { get }

    /// The backend's name, which callers put in ``RemoteStoreError/backend`` of the errors they
    /// pass on. Optional: the default is ``RemoteStoreProvider/backendName`` for a store that is
    /// its own provider, else `nil`; a decorator returns its base store's.
    var backendName: String? { get }

    /// Describes the file or directory at `path`, or returns `nil` if there is none.
    ///
    /// ## Behavior
    /// - A missing path returns `nil`; it never throws `notFound` (`existsOfMissingPathReturnsNil`).
    /// - A path whose parent is a file returns `nil` (`existsBelowAFileReturnsNil`).
    /// - A file returns kind ``RemoteItem/Kind/file`` with its size in bytes
    ///   (`existsReportsFileKindAndSize`); a directory returns kind ``RemoteItem/Kind/directory``
    ///   (`existsReportsDirectoryKind`); the root always exists as a directory (`rootExists`).
    ///
    /// - Throws: ``RemoteStoreError`` only for failures to ask (unavailable, permission denied…).
    func exists(_ path: RemotePath) async throws -> RemoteItem?

    /// Creates the directory at `path`, and any missing directories above it.
    ///
    /// ## Behavior
    /// - Intermediate directories are created (`createDirectoryCreatesIntermediates`).
    /// - An existing directory is success; nothing inside it changes
    ///   (`createDirectoryOnExistingDirectorySucceeds`).
    /// - Creating the root succeeds and does nothing (`createDirectoryOfRootSucceeds`).
    /// - Throws ``RemoteStoreError/Code/alreadyExists`` if a file stands at `path`
    ///   (`createDirectoryOverFileThrowsAlreadyExists`), and
    ///   ``RemoteStoreError/Code/notADirectory`` if a file stands at one of its ancestors
    ///   (`createDirectoryBelowFileThrowsNotADirectory`).
    /// - Partial failure may leave some intermediate directories created; repeating the call
    ///   completes it.
    func createDirectory(at path: RemotePath) async throws

    /// Stores the content of the local file `localFile` at `path`, replacing any existing file.
    ///
    /// ## Behavior
    /// - The bytes arrive exactly (`uploadAndDownloadRoundTripEmptyFile`,
    ///   `uploadAndDownloadRoundTripSmallFile`, `uploadAndDownloadRoundTripMultiMegabyteFile`),
    ///   also at the sizes where buffers and length fields break — 0, 1, 65,535, 65,536, 65,537
    ///   and 1,048,577 bytes, with those exact sizes reported by ``exists(_:)`` and ``list(_:)``
    ///   (`boundarySizesRoundTripWithExactSizes`) — and an existing file is replaced whole,
    ///   shorter or longer (`uploadOverwritesExistingFile`).
    /// - **A reader never sees a partial file**: until the upload completes, readers see the old
    ///   content or (for a new file) no file (`uploadIsNeverVisiblePartially`). Backends write to a
    ///   temporary name in the same directory and rename it into place. Where the transport cannot
    ///   replace atomically, ``RemoteCapabilities/atomicReplace`` is false and a reader may briefly
    ///   see no file during a replacement, never a partial one.
    /// - The parent directory must exist: no directories are created
    ///   (`uploadIntoMissingDirectoryThrowsNotFound`). A file as parent throws
    ///   ``RemoteStoreError/Code/notADirectory`` (`uploadBelowFileThrowsNotADirectory`), and a
    ///   directory at `path` throws
    ///   ``RemoteStoreError/Code/isADirectory`` (`uploadOverDirectoryThrowsIsADirectory`).
    /// - A missing or unreadable local file throws ``RemoteStoreError/Code/localFile`` and changes
    ///   nothing remotely (`uploadOfMissingLocalFileThrowsLocalFile`).
    /// - Cancelled or failed uploads leave the previous state and no visible temporary file
    ///   (`cancelledUploadLeavesPreviousContent`).
    func upload(contentsOf localFile: URL, to path: RemotePath) async throws

    /// Stores the content of `localFile` at `path` only if nothing stands there yet: an atomic
    /// "create if absent" on the server, for files that several clients may try to create at
    /// once and of which the first must win (RollingSync's `format.json` of a new application).
    ///
    /// ## Behavior
    /// - Requires ``RemoteCapabilities/exclusiveCreate``; without it the call throws
    ///   ``RemoteStoreError/Code/unsupported`` and changes nothing
    ///   (`createExclusivelyCreatesOnlyOnce`). The default implementation does that.
    /// - When nothing is at `path`, the file is created with the bytes of `localFile`, with the
    ///   same guarantees as ``upload(contentsOf:to:)`` (never visible partially; the parent must
    ///   exist unless ``RemoteCapabilities/implicitDirectories``).
    /// - When a file or directory is at `path`, throws ``RemoteStoreError/Code/alreadyExists``
    ///   and leaves it unchanged (`createExclusivelyCreatesOnlyOnce`).
    /// - Of several calls racing on one path, from one store or many, exactly one succeeds and
    ///   the others throw `alreadyExists`; the file holds the winner's bytes
    ///   (`concurrentExclusiveCreatesHaveOneWinner`).
    func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws

    /// Writes the content of the file at `path` to the local file `localFile`, streaming it to
    /// disk (never holding a whole large file in memory).
    ///
    /// ## Behavior
    /// - An existing local file is replaced (`downloadReplacesExistingLocalFile`); its parent
    ///   directory must exist.
    /// - Throws ``RemoteStoreError/Code/notFound`` for a missing path
    ///   (`downloadOfMissingFileThrowsNotFound`) and ``RemoteStoreError/Code/isADirectory`` for a
    ///   directory (`downloadOfDirectoryThrowsIsADirectory`).
    /// - Local write failures throw ``RemoteStoreError/Code/localFile``, for example a missing
    ///   local directory (`downloadToMissingLocalDirectoryThrowsLocalFile`).
    /// - On any failure or cancellation no file is left at `localFile`, and an existing one is
    ///   left unchanged or removed, never half-written (`failedDownloadLeavesNoPartialLocalFile`,
    ///   `cancelledDownloadLeavesNoLocalFile`).
    func download(_ path: RemotePath, to localFile: URL) async throws

    /// Downloads a file the caller knows is never replaced while it exists (written once under a
    /// unique name, as RollingSync's change sets and whole-store parts are), like
    /// ``download(_:to:)`` but allowed to skip the checks that only guard against the file being
    /// replaced during the transfer, such as a second request comparing versions.
    ///
    /// ## Behavior
    /// - Everything ``download(_:to:)`` promises for a file that is not replaced: the same bytes,
    ///   ``RemoteStoreError/Code/notFound`` for a missing path, no partial local file on failure,
    ///   and a transfer cut short is an error, never a shorter file
    ///   (`immutableDownloadRoundTripsAndFailsCleanly`).
    /// - For a directory the outcome is unspecified (an error, or a file with whatever the server
    ///   answers); callers name files they listed.
    /// - The default implementation calls ``download(_:to:)``.
    func downloadImmutableFile(_ path: RemotePath, to localFile: URL) async throws

    /// Copies the file at `source` to `destination`, replacing any file there.
    ///
    /// ## Behavior
    /// - The copy is independent: replacing or deleting either afterwards leaves the other as it
    ///   was (`copyIsIndependentOfSource`); the source is unchanged (`copyRoundTrip`).
    /// - An existing destination file is replaced (`copyOverwritesDestination`), with the same
    ///   visibility guarantee as ``upload(contentsOf:to:)``: readers see the old content, the
    ///   complete new content, or (without ``RemoteCapabilities/atomicReplace``, or for a new file)
    ///   no file (`copyIsNeverVisiblePartially`).
    /// - Throws ``RemoteStoreError/Code/notFound`` if `source` is missing
    ///   (`copyOfMissingSourceThrowsNotFound`) or the destination's parent is missing
    ///   (`copyIntoMissingDirectoryThrowsNotFound`), and ``RemoteStoreError/Code/isADirectory``
    ///   if `source` or `destination` is a directory (`copyOfDirectoryThrowsIsADirectory`);
    ///   copying directories is not part of the contract.
    /// - Copying a file onto itself succeeds and leaves it unchanged (`copyOntoItselfLeavesFileUnchanged`).
    /// - Server-side where the transport has it (``RemoteCapabilities/serverSideCopy``); otherwise
    ///   the bytes travel through the client.
    func copy(_ source: RemotePath, to destination: RemotePath) async throws

    /// Lists the direct children of the directory at `directory`.
    ///
    /// ## Behavior
    /// - Every file and directory directly inside is returned once, with its full path from the
    ///   root, its kind and, for files, its size (`listReturnsFilesAndDirectoriesWithKinds`);
    ///   nothing below them (`listIsNotRecursive`). The order is unspecified. A directory of more
    ///   than 1,000 entries is listed whole: a backend whose service answers in pages follows
    ///   every page (`largeDirectoryListsEveryEntryOnce`).
    /// - `.`, `..` and temporary files (``RemotePath/reservedTemporaryPrefix``) are never returned,
    ///   also while uploads into the directory are in flight, and listing never fails because of
    ///   them (`listNeverReturnsDotEntriesOrTemporaryFiles`).
    /// - When ``RemoteCapabilities/modificationTimePrecision`` is not `nil`, every file returned
    ///   here and by ``exists(_:)`` has a ``RemoteItem/modificationDate``
    ///   (`modificationDatesAreReportedWhenDeclared`).
    /// - An empty directory returns an empty array (`listOfEmptyDirectoryIsEmpty`).
    /// - Throws ``RemoteStoreError/Code/notFound`` for a missing directory, so callers can tell an
    ///   uninitialised store from an empty one (`listOfMissingDirectoryThrowsNotFound`), and
    ///   ``RemoteStoreError/Code/notADirectory`` for a file (`listOfFileThrowsNotADirectory`).
    func list(_ directory: RemotePath) async throws -> [RemoteItem]

    /// Deletes the file or directory at `path`; a directory is deleted with everything inside it.
    ///
    /// ## Behavior
    /// - A missing path is success, so retries and concurrent cleanups are safe; that includes a
    ///   path whose parent is missing or is a file (`deleteOfMissingPathSucceeds`).
    /// - Files (`deleteRemovesFile`) and whole trees (`deleteRemovesDirectoryTree`) go; the parent
    ///   and siblings stay (`deleteLeavesSiblings`).
    /// - Deleting the root throws ``RemoteStoreError/Code/invalidPath``
    ///   (`deleteOfRootThrowsInvalidPath`): delete its children one by one if that is meant.
    /// - A failure part-way through a tree may leave some of it; repeating the call finishes it.
    func delete(_ path: RemotePath) async throws

    /// The temporary files in `directory` (not below it): uploads in flight, and files that
    /// interrupted uploads left behind. Their names start with
    /// ``RemotePath/reservedTemporaryPrefix``, so ``list(_:)`` never returns them.
    ///
    /// ## Behavior
    /// - Optional. The default returns none: for a store that writes no temporary files, or
    ///   cannot tell them apart.
    /// - Never returns an ordinary file or a directory (`temporaryFilesAreNeverOrdinaryFiles`).
    /// - A missing directory throws ``RemoteStoreError/Code/notFound``, as ``list(_:)``.
    /// - `rollsync verify` reports them; with `--repair` it deletes those last written more than
    ///   a day ago, so choose a ``TemporaryFile/modificationDate`` source that moves while an
    ///   upload writes.
    func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile]

    /// Deletes a temporary file that ``temporaryFiles(in:)`` returned; a missing one is success.
    ///
    /// The default throws ``RemoteStoreError/Code/unsupported`` (its ``temporaryFiles(in:)``
    /// returns none, so nothing calls it).
    func deleteTemporaryFile(_ file: TemporaryFile) async throws

    /// Notifications that something changed in `directory` (not below it), for a backend that
    /// learns of changes without asking: each element means "list it again".
    ///
    /// ## Behavior
    /// - Optional. The default returns `nil`: the backend cannot notify (every network backend);
    ///   so does a missing directory.
    /// - A hint only: notifications may be coalesced, may come for changes that list the same,
    ///   and may never come (a network file system mounted as a folder), so a caller keeps
    ///   polling, only less often.
    /// - The stream ends, and holds nothing any more, once the task iterating it is cancelled or
    ///   the stream is released.
    func changeNotifications(in directory: RemotePath) -> AsyncStream<Void>?

    /// Releases connections and other resources. The store must not be used afterwards.
    ///
    /// Idempotent. The default implementation does nothing.
    func close() async
}

extension RemoteStore {
    public func close() async {}

    public var backendName: String? { (Self.self as? any RemoteStoreProvider.Type)?.backendName }

    /// Throws ``RemoteStoreError/Code/unsupported``: a store declares
    /// ``RemoteCapabilities/exclusiveCreate`` and implements this when its transport can.
    public func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        throw RemoteStoreError(.unsupported, path: path, message: "this store cannot create a file exclusively")
    }

    public func downloadImmutableFile(_ path: RemotePath, to localFile: URL) async throws {
        try await download(path, to: localFile)
    }

    public func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] { [] }

    public func deleteTemporaryFile(_ file: TemporaryFile) async throws {
        throw RemoteStoreError(.unsupported, path: file.directory, message: "this store keeps no temporary files to delete")
    }

    public func changeNotifications(in directory: RemotePath) -> AsyncStream<Void>? { nil }
}
