import Foundation
import RemoteProtocol
import RemoteTransportSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The blocking bodies of ``FileRemoteStore``'s primitives; each is documented on the store.
extension FileSystemRoot {
    func item(at path: RemotePath) throws(RemoteStoreError) -> RemoteItem? {
        if path.isRoot {
            let directory = try openDirectory([], for: path)
            do {
                return try directory.status().item(at: path)
            } catch {
                throw FailureContext.remote(path).error(error, "inspect")
            }
        }
        do {
            return try entry(at: path, followingFinalLink: true).status?.item(at: path)
        } catch where error.code == .notFound || error.code == .notADirectory {
            return nil
        }
    }

    func createDirectory(at path: RemotePath) throws(RemoteStoreError) {
        _ = try openDirectory(path.components, for: path, creatingMissing: true)
    }

    func items(in path: RemotePath) throws(RemoteStoreError) -> [RemoteItem] {
        let context = FailureContext.remote(path)
        let directory = try openExistingDirectory(at: path)
        let names: [String]
        do {
            names = try directory.entryNames()
        } catch {
            throw context.error(error, "list")
        }
        var items: [RemoteItem] = []
        for name in names where !name.hasPrefix(RemotePath.reservedTemporaryPrefix) {
            guard let childPath = Self.childPath(of: path, named: name) else { continue }
            let status: FileStatus?
            do {
                status = try directory.status(ofEntry: name)
            } catch {
                throw FailureContext.remote(childPath).error(error, "inspect")
            }
            // A link is shown as its target when that lies inside the root; otherwise it is left out.
            let shown = status?.kind == .symbolicLink
                ? (try? entry(at: childPath, followingFinalLink: true))?.status : status
            if let item = shown?.item(at: childPath) {
                items.append(item)
            }
        }
        return items
    }

    func remove(_ path: RemotePath) throws(RemoteStoreError) {
        guard !path.isRoot else {
            throw RemoteStoreError(
                .invalidPath,
                path: path,
                message: "the store's root cannot be deleted; delete its children one by one if that is meant"
            )
        }
        let entry: Entry
        do {
            entry = try self.entry(at: path, followingFinalLink: false)
        } catch where error.code == .notFound || error.code == .notADirectory {
            return  // already gone: nothing can be below a missing directory or a file
        }
        guard let status = entry.status else { return }
        do {
            if status.kind == .directory {
                try removeTree(named: entry.name, in: entry.directory)
            } else {
                try entry.directory.removeEntry(named: entry.name, isDirectory: false)
            }
            try entry.directory.synchronize()
        } catch where error.code == ENOENT {
            return
        } catch {
            throw FailureContext.remote(path).error(error, "delete")
        }
    }

    func prepareUpload(from localFile: URL, to path: RemotePath) throws(RemoteStoreError) -> FileTransfer {
        let localContext = FailureContext.local(localFile)
        let source: FileDescriptor
        do throws(SystemCallError) {
            source = try FileDescriptor.openFileForReading(atPath: localFile.path(percentEncoded: false))
            if try source.status().kind == .directory {
                throw SystemCallError(code: EISDIR)
            }
        } catch {
            throw localContext.error(error, "read")
        }
        let destination = try writableEntry(at: path)
        return FileTransfer(
            source: source,
            sourceContext: localContext,
            destination: try StagedFile(in: destination.directory, reportingAs: .remote(path)),
            finalName: destination.name
        )
    }

    func prepareDownload(of path: RemotePath, to localFile: URL) throws(RemoteStoreError) -> FileTransfer {
        let source = try openExistingFile(at: path)
        let localContext = FailureContext.local(localFile)
        let localDirectory: FileDescriptor
        do {
            localDirectory = try FileDescriptor.openDirectory(
                atPath: localFile.deletingLastPathComponent().path(percentEncoded: false)
            )
        } catch {
            throw localContext.error(error, "open the folder of")
        }
        return FileTransfer(
            source: source,
            sourceContext: .remote(path),
            destination: try StagedFile(in: localDirectory, reportingAs: localContext),
            finalName: localFile.lastPathComponent
        )
    }

    func prepareCopy(of source: RemotePath, to destination: RemotePath) throws(RemoteStoreError) -> FileTransfer {
        let sourceFile = try openExistingFile(at: source)
        let target = try writableEntry(at: destination)
        return FileTransfer(
            source: sourceFile,
            sourceContext: .remote(source),
            destination: try StagedFile(in: target.directory, reportingAs: .remote(destination)),
            finalName: target.name
        )
    }

    /// The temporary files (regular files only) directly inside the directory at `path`.
    func temporaryFiles(in path: RemotePath) throws(RemoteStoreError) -> [TemporaryFile] {
        let directory = try openExistingDirectory(at: path)
        do {
            var files: [TemporaryFile] = []
            for name in try directory.entryNames() where name.hasPrefix(RemotePath.reservedTemporaryPrefix) {
                guard let status = try directory.status(ofEntry: name), status.kind == .file else { continue }
                files.append(TemporaryFile(directory: path, name: name, size: status.size, modificationDate: status.modificationDate))
            }
            return files
        } catch {
            throw FailureContext.remote(path).error(error, "list the temporary files in")
        }
    }

    /// Removes the temporary file `name` in the directory at `path`; a missing one is success.
    func removeTemporaryFile(named name: String, in path: RemotePath) throws(RemoteStoreError) {
        guard name.hasPrefix(RemotePath.reservedTemporaryPrefix), !name.utf8.contains(UInt8(ascii: "/")) else {
            throw RemoteStoreError(.invalidPath, path: path, message: "'\(name)' is not the name of a temporary file")
        }
        let directory = try openExistingDirectory(at: path)
        do {
            try directory.removeEntry(named: name, isDirectory: false)
        } catch where error.code == ENOENT {
            return
        } catch {
            throw FailureContext.remote(path).error(error, "remove the temporary file \(name) in")
        }
    }

    /// Removes the temporary files in `path` (not below it) last modified before `cutoff`, and
    /// returns how many went and the real subdirectories (never links) still to visit.
    func removeTemporaryFiles(
        in path: RemotePath,
        modifiedBefore cutoff: Date
    ) throws(RemoteStoreError) -> (removedCount: Int, subdirectories: [RemotePath]) {
        let directory = try openExistingDirectory(at: path)
        let context = FailureContext.remote(path)
        var removedCount = 0
        var subdirectories: [RemotePath] = []
        do {
            for name in try directory.entryNames() {
                guard let status = try directory.status(ofEntry: name) else { continue }
                if name.hasPrefix(RemotePath.reservedTemporaryPrefix) {
                    guard status.kind == .file, status.modificationDate < cutoff else { continue }
                    do {
                        try directory.removeEntry(named: name, isDirectory: false)
                        removedCount += 1
                    } catch where error.code == ENOENT {
                        continue  // finished or cleaned up meanwhile
                    }
                } else if status.kind == .directory, let child = Self.childPath(of: path, named: name) {
                    subdirectories.append(child)
                }
            }
        } catch {
            throw context.error(error, "remove leftover temporary files in")
        }
        return (removedCount, subdirectories)
    }

    /// Opens the directory at `path` for listing: ``RemoteStoreError/Code/notFound`` if nothing
    /// is there, ``RemoteStoreError/Code/notADirectory`` for a file.
    private func openExistingDirectory(at path: RemotePath) throws(RemoteStoreError) -> FileDescriptor {
        if path.isRoot {
            return try openDirectory([], for: path)
        }
        let entry = try entry(at: path, followingFinalLink: true)
        switch entry.status?.kind {
        case .directory?:
            do {
                return try entry.directory.openDirectory(named: entry.name)
            } catch {
                throw FailureContext.remote(path).error(error, "open the directory")
            }
        case .file?, .other?:
            throw RemoteStoreError(.notADirectory, path: path, message: "'\(path)' is a file, not a directory")
        case .symbolicLink?, nil:
            throw RemoteStoreError(.notFound, path: path, message: "there is no directory at '\(path)'")
        }
    }

    /// Opens the regular file at `path` for reading: ``RemoteStoreError/Code/notFound`` if nothing
    /// is there, ``RemoteStoreError/Code/isADirectory`` for a directory,
    /// ``RemoteStoreError/Code/unsupported`` for a FIFO, socket or device.
    private func openExistingFile(at path: RemotePath) throws(RemoteStoreError) -> FileDescriptor {
        guard !path.isRoot else { throw Self.rootIsADirectory(path) }
        let entry = try entry(at: path, followingFinalLink: true)
        switch entry.status?.kind {
        case .file?:
            break
        case .directory?:
            throw RemoteStoreError(.isADirectory, path: path, message: "'\(path)' is a directory, not a file")
        case .other?:
            throw RemoteStoreError(.unsupported, path: path, message: "'\(path)' is not a regular file")
        case .symbolicLink?, nil:
            throw RemoteStoreError(.notFound, path: path, message: "there is no file at '\(path)'")
        }
        let context = FailureContext.remote(path)
        do throws(SystemCallError) {
            let file = try entry.directory.openFileForReading(named: entry.name)
            guard try file.status().kind == .file else { throw SystemCallError(code: EISDIR) }
            return file
        } catch {
            throw context.error(error, "open")
        }
    }

    /// The entry a file is about to be written to: its parent must exist and it must not be a
    /// directory.
    private func writableEntry(at path: RemotePath) throws(RemoteStoreError) -> Entry {
        guard !path.isRoot else { throw Self.rootIsADirectory(path) }
        let entry = try entry(at: path, followingFinalLink: true)
        if entry.status?.kind == .directory {
            throw RemoteStoreError(.isADirectory, path: path, message: "a directory stands at '\(path)'")
        }
        return entry
    }

    /// Removes the directory `name` of `parent` and everything below it, without following any
    /// symbolic link (a link is removed, never its target). Entries that vanish meanwhile are fine.
    private func removeTree(named name: String, in parent: FileDescriptor) throws(SystemCallError) {
        let directory: FileDescriptor
        do {
            directory = try parent.openDirectory(named: name)
        } catch where error.code == ENOENT {
            return
        } catch where error.code == ENOTDIR {
            try parent.removeEntry(named: name, isDirectory: false)  // replaced by a file or link meanwhile
            return
        }
        for child in try directory.entryNames() {
            do {
                if try directory.status(ofEntry: child)?.kind == .directory {
                    try removeTree(named: child, in: directory)
                } else {
                    try directory.removeEntry(named: child, isDirectory: false)
                }
            } catch where error.code == ENOENT {
                continue
            }
        }
        try parent.removeEntry(named: name, isDirectory: true)
    }

    /// The path of the entry `name` of `directory`, or `nil` if no ``RemotePath`` spells that name
    /// exactly (a name that is not in NFC, say), so it cannot be addressed and is left alone.
    private static func childPath(of directory: RemotePath, named name: String) -> RemotePath? {
        guard let child = try? RemotePath(components: directory.components + [name]),
            child.name.utf8.elementsEqual(name.utf8)
        else { return nil }
        return child
    }

    private static func rootIsADirectory(_ path: RemotePath) -> RemoteStoreError {
        RemoteStoreError(.isADirectory, path: path, message: "the store's root is a directory, not a file")
    }
}
