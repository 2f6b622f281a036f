import Foundation

/// A temporary file in a store: an upload in flight, or one an interrupted upload left behind (a
/// killed process, a dropped connection). Its name starts with
/// ``RemotePath/reservedTemporaryPrefix``, so ``RemoteStore/list(_:)`` never returns it and no
/// ``RemotePath`` can name it; ``RemoteStore/temporaryFiles(in:)`` finds it and
/// ``RemoteStore/deleteTemporaryFile(_:)`` removes it.
public struct TemporaryFile: Hashable, Sendable, CustomStringConvertible {
    /// The directory it is in.
    public var directory: RemotePath
    /// Its name (starting with ``RemotePath/reservedTemporaryPrefix``).
    public var name: String
    /// Its size in bytes, when the store reports it.
    public var size: Int64?
    /// When it was last written, by the server's clock, when the store reports it: how a caller
    /// tells a leftover from an upload still running.
    public var modificationDate: Date?

    /// Describes a temporary file.
    public init(directory: RemotePath, name: String, size: Int64? = nil, modificationDate: Date? = nil) {
        self.directory = directory
        self.name = name
        self.size = size
        self.modificationDate = modificationDate
    }

    /// The file's path relative to the store's root, as text (it is no ``RemotePath``).
    public var description: String { directory.isRoot ? name : "\(directory.string)/\(name)" }
}
