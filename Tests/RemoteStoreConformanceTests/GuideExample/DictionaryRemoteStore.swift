import Foundation
import RemoteProtocol

/// A complete, minimal backend: files live in a dictionary, the way an object store keeps keys.
/// Docs/ExtendingGuide.md builds it step by step; the contract suite checks it.
public actor DictionaryRemoteStore: RemoteStore {
    /// Copies stay "on the server"; every replacement is one assignment (atomic); no dates.
    public nonisolated let capabilities = RemoteCapabilities(
        serverSideCopy: true, atomicReplace: true, modificationTimePrecision: nil
    )

    private var files: [RemotePath: Data] = [:]
    private var directories: Set<RemotePath> = [.root]

    /// Creates an empty store.
    public init() {}

    public func exists(_ path: RemotePath) -> RemoteItem? {
        if directories.contains(path) {
            return RemoteItem(path: path, kind: .directory)
        }
        if let content = files[path] {
            return RemoteItem(path: path, kind: .file, size: Int64(content.count))
        }
        return nil  // missing, or below a file: never an error
    }

    public func createDirectory(at path: RemotePath) throws {
        for directory in path.ancestors + [path] where !directory.isRoot {
            if files[directory] != nil {
                throw RemoteStoreError(directory == path ? .alreadyExists : .notADirectory, path: path)
            }
            directories.insert(directory)
        }
    }

    public func upload(contentsOf localFile: URL, to path: RemotePath) throws {
        let content: Data
        do {
            content = try Data(contentsOf: localFile)
        } catch {
            throw RemoteStoreError(.localFile, path: path, message: "cannot read \(localFile.path)", underlying: error)
        }
        try Task.checkCancellation()  // a cancelled upload changes nothing
        try requireParentDirectory(of: path)
        if directories.contains(path) {
            throw RemoteStoreError(.isADirectory, path: path)
        }
        files[path] = content  // one step: no reader ever sees part of it
    }

    public func download(_ path: RemotePath, to localFile: URL) throws {
        guard let content = files[path] else {
            throw RemoteStoreError(directories.contains(path) ? .isADirectory : .notFound, path: path)
        }
        try Task.checkCancellation()
        do {
            try content.write(to: localFile, options: .atomic)  // never a half-written local file
        } catch {
            throw RemoteStoreError(.localFile, path: path, message: "cannot write \(localFile.path)", underlying: error)
        }
    }

    public func copy(_ source: RemotePath, to destination: RemotePath) throws {
        guard let content = files[source] else {
            throw RemoteStoreError(directories.contains(source) ? .isADirectory : .notFound, path: source)
        }
        try requireParentDirectory(of: destination)
        if directories.contains(destination) {
            throw RemoteStoreError(.isADirectory, path: destination)
        }
        files[destination] = content
    }

    public func list(_ directory: RemotePath) throws -> [RemoteItem] {
        guard directories.contains(directory) else {
            throw RemoteStoreError(files[directory] != nil ? .notADirectory : .notFound, path: directory)
        }
        let children = directories.filter { $0.parent == directory } + files.keys.filter { $0.parent == directory }
        return children.compactMap { exists($0) }
    }

    public func delete(_ path: RemotePath) throws {
        if path.isRoot {
            throw RemoteStoreError(.invalidPath, path: path, message: "the root cannot be deleted")
        }
        files = files.filter { !$0.key.isDescendant(ofOrEqualTo: path) }  // nothing there: success
        directories = directories.filter { !$0.isDescendant(ofOrEqualTo: path) }
    }

    /// Uploads and copies need an existing parent directory; they never create one.
    private func requireParentDirectory(of path: RemotePath) throws {
        let parent = path.parent ?? .root
        if !directories.contains(parent) {
            throw RemoteStoreError(files[parent] != nil ? .notADirectory : .notFound, path: path)
        }
    }
}

extension DictionaryRemoteStore: RemoteStoreProvider {
    /// Opened from `dictionary://anything` URLs.
    public static let urlSchemes: Set<String> = ["dictionary"]

    /// Opens a new, empty store.
    public static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        DictionaryRemoteStore()
    }
}
