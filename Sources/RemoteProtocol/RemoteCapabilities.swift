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

    /// Declares capabilities.
    public init(serverSideCopy: Bool, atomicReplace: Bool, modificationTimePrecision: Duration?) {
        self.serverSideCopy = serverSideCopy
        self.atomicReplace = atomicReplace
        self.modificationTimePrecision = modificationTimePrecision
    }
}
