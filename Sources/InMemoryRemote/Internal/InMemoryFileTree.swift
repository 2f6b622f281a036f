import Foundation
import RemoteProtocol

/// The files and directories of an ``InMemoryRemoteStore``: a synchronous value that applies the
/// `RemoteStore` contract's rules, so the actor around it only adds faults, latency and counting.
struct InMemoryFileTree: Sendable {
    private enum Node: Sendable {
        case file(content: Data, modified: Date)
        case directory(children: Set<String>, modified: Date)
    }

    /// Every node by path; the root is always a directory.
    private var nodes: [RemotePath: Node]

    /// An empty tree whose root was created at `now`.
    init(now: Date) {
        nodes = [.root: .directory(children: [], modified: now)]
    }

    /// The item at `path`, or `nil` (also below a file). `reportDates` false leaves dates out.
    func item(at path: RemotePath, reportDates: Bool) -> RemoteItem? {
        switch nodes[path] {
        case nil:
            return nil
        case .file(let content, let modified):
            return RemoteItem(path: path, kind: .file, size: Int64(content.count), modificationDate: reportDates ? modified : nil)
        case .directory(_, let modified):
            return RemoteItem(path: path, kind: .directory, modificationDate: reportDates ? modified : nil)
        }
    }

    /// Creates `path` and its missing ancestors.
    mutating func createDirectory(at path: RemotePath, now: Date) throws {
        for directory in path.ancestors + (path.isRoot ? [] : [path]) {
            switch nodes[directory] {
            case .directory:
                continue
            case .file:
                throw directory == path
                    ? RemoteStoreError(.alreadyExists, path: path, message: "a file stands where the directory is to be created")
                    : RemoteStoreError(.notADirectory, path: path, message: "'\(directory)' is a file, not a directory")
            case nil:
                nodes[directory] = .directory(children: [], modified: now)
                updateChildren(of: directory) { $0.insert(directory.name) }
            }
        }
    }

    /// Stores `content` at `path`, replacing a file there.
    mutating func writeFile(_ content: Data, at path: RemotePath, now: Date) throws {
        if case .directory = nodes[path] {
            throw RemoteStoreError(.isADirectory, path: path, message: "a directory stands where the file is to be written")
        }
        try requireParentDirectory(of: path)
        nodes[path] = .file(content: content, modified: now)
        updateChildren(of: path) { $0.insert(path.name) }
    }

    /// The content of the file at `path`.
    func file(at path: RemotePath) throws -> Data {
        switch nodes[path] {
        case .file(let content, _):
            return content
        case .directory:
            throw RemoteStoreError(.isADirectory, path: path, message: "a directory cannot be read as a file")
        case nil:
            throw RemoteStoreError(.notFound, path: path, message: "no file at this path")
        }
    }

    /// The direct children of the directory at `path`.
    func list(_ path: RemotePath, reportDates: Bool) throws -> [RemoteItem] {
        switch nodes[path] {
        case .directory(let children, _):
            return children.compactMap { item(at: path / $0, reportDates: reportDates) }
        case .file:
            throw RemoteStoreError(.notADirectory, path: path, message: "a file cannot be listed")
        case nil:
            throw RemoteStoreError(.notFound, path: path, message: "no directory at this path")
        }
    }

    /// Removes `path` and everything below it; a missing path is success.
    mutating func delete(_ path: RemotePath) throws {
        if path.isRoot {
            throw RemoteStoreError(.invalidPath, path: path, message: "the root cannot be deleted; delete its children instead")
        }
        guard nodes[path] != nil else { return }
        removeTree(path)
        updateChildren(of: path) { $0.remove(path.name) }
    }

    private mutating func removeTree(_ path: RemotePath) {
        if case .directory(let children, _) = nodes.removeValue(forKey: path) {
            for child in children {
                removeTree(path / child)
            }
        }
    }

    private func requireParentDirectory(of path: RemotePath) throws {
        guard let parent = path.parent else {
            throw RemoteStoreError(.isADirectory, path: path, message: "the root is a directory")
        }
        switch nodes[parent] {
        case .directory:
            return
        case .file:
            throw RemoteStoreError(.notADirectory, path: path, message: "the parent '\(parent)' is a file")
        case nil:
            throw RemoteStoreError(.notFound, path: path, message: "the parent directory '\(parent)' does not exist")
        }
    }

    /// Applies `change` to the child names of `path`'s parent directory.
    private mutating func updateChildren(of path: RemotePath, _ change: (inout Set<String>) -> Void) {
        guard let parent = path.parent, case .directory(var children, let modified) = nodes[parent] else { return }
        change(&children)
        nodes[parent] = .directory(children: children, modified: modified)
    }
}
