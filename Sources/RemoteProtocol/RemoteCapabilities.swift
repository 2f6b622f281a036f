/// What a ``RemoteStore`` can do beyond the common contract, declared honestly so callers and the
/// conformance suite can adapt.
public struct RemoteCapabilities: Hashable, Sendable {
    /// ``RemoteStore/copy(_:to:)`` runs on the server without moving the bytes through the client.
    /// When false, copy downloads and uploads the file (still correct, but it costs transfer).
    public var serverSideCopy: Bool

    /// Overwriting an existing file with ``RemoteStore/upload(contentsOf:to:)`` is atomic: every
    /// reader sees either the old or the new content, never an absent file. When false, a reader
    /// may briefly find no file at the path during a replacement (it still never sees a partial
    /// file). A *new* file is never visible before it is complete, whatever this says.
    public var atomicReplace: Bool

    /// The precision of ``RemoteItem/modificationDate``; `nil` if the backend reports no dates.
    public var modificationTimePrecision: Duration?

    /// Directories are implied by the files below them, as on object storage (S3), instead of
    /// being entries of their own. What changes (everything else of the contract holds):
    /// - ``RemoteStore/upload(contentsOf:to:)``, ``RemoteStore/copy(_:to:)`` and
    ///   ``RemoteStore/createExclusively(contentsOf:at:)`` into a missing directory **succeed**
    ///   and create it (and its missing ancestors) instead of throwing `notFound`; the directory
    ///   then exists, as a directory, for ``RemoteStore/exists(_:)`` and ``RemoteStore/list(_:)``.
    /// - A directory made with ``RemoteStore/createDirectory(at:)`` exists until it is deleted,
    ///   empty or not; a directory that only files implied disappears with its last file.
    ///
    /// Callers that rely on "upload into a missing directory fails" to detect a deleted
    /// directory must check with ``RemoteStore/exists(_:)`` or ``RemoteStore/list(_:)`` instead
    /// (RollingSync's sync engine never relies on it). Default false.
    public var implicitDirectories: Bool

    /// ``RemoteStore/createExclusively(contentsOf:at:)`` is implemented: a file is created only
    /// if nothing stands at its path, atomically on the server, so of two clients creating the
    /// same file at once exactly one succeeds. When false, that call throws `unsupported` and
    /// callers fall back to an ordinary upload. Default false.
    public var exclusiveCreate: Bool

    /// Declares capabilities.
    public init(
        serverSideCopy: Bool,
        atomicReplace: Bool,
        modificationTimePrecision: Duration?,
        implicitDirectories: Bool = false,
        exclusiveCreate: Bool = false
    ) {
        self.serverSideCopy = serverSideCopy
        self.atomicReplace = atomicReplace
        self.modificationTimePrecision = modificationTimePrecision
        self.implicitDirectories = implicitDirectories
        self.exclusiveCreate = exclusiveCreate
    }
}
