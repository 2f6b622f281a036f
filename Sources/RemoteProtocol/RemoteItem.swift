import Foundation

/// One file or directory in a ``RemoteStore``, as returned by ``RemoteStore/exists(_:)`` and
/// ``RemoteStore/list(_:)``.
public struct RemoteItem: Hashable, Sendable {
    /// Whether an item is a file or a directory. Other kinds (symbolic links, devices) are never
    /// reported: backends resolve links inside the store or leave them out.
    public enum Kind: String, Hashable, Sendable, Codable {
        case file
        case directory
    }

    /// The item's full path from the store's root.
    public var path: RemotePath
    /// File or directory.
    public var kind: Kind
    /// The size in bytes for files; `nil` for directories and where the backend cannot tell.
    public var size: Int64?
    /// The modification time the server reports, if any. Its precision is the backend's
    /// ``RemoteCapabilities/modificationTimePrecision``; servers may set it themselves, so never
    /// rely on it for ordering.
    public var modificationDate: Date?

    /// Creates an item description.
    public init(path: RemotePath, kind: Kind, size: Int64? = nil, modificationDate: Date? = nil) {
        self.path = path
        self.kind = kind
        self.size = size
        self.modificationDate = modificationDate
    }

    /// The last path component.
    public var name: String { path.name }

    /// True for directories.
    public var isDirectory: Bool { kind == .directory }
}
