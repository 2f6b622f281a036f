import CLibSSH2
import Foundation
import RemoteProtocol

/// The store's metadata operations on one connection, with the contract's error codes.
///
/// OpenSSH's SFTP server (protocol v3) answers only "failure" or "no such file" in several cases
/// (mkdir over an existing name, opendir on a file, a file as a parent), so each operation stats
/// the path after such an answer to report the precise code.
extension SFTPConnection {
    /// The file or directory at `path`, or `nil` if there is none (or only a symbolic link or a
    /// special file, which the store does not expose).
    func item(at path: RemotePath) throws -> RemoteItem? {
        do {
            return try lstat(serverPath(path))?.remoteItem(at: path)
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot look up '\(path)'", path: path)
        }
    }

    /// Creates the directory at `path` and every missing directory above it (the store's root included).
    func createDirectory(_ path: RemotePath) throws {
        do {
            try ensureDirectory(serverPath(path), reportingAs: path, isTarget: true)
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot create the directory '\(path)'", path: path)
        }
    }

    /// mkdir, then on failure: done if a directory is there, a clear error if a file is, and the
    /// parent first if nothing is. Throws ``SFTPFailure`` for anything unexplained.
    ///
    /// OpenSSH answers "no such file" for a missing parent, but other servers answer a generic
    /// failure (status 4): both lead up the walk, which stops at the first existing ancestor. A
    /// refusal (permission denied) or an unknown status is thrown at once.
    private func ensureDirectory(_ directory: String, reportingAs path: RemotePath, isTarget: Bool) throws {
        do {
            try mkdir(directory)
            return
        } catch let failure as SFTPFailure where !failure.breaksConnection {
            if let attributes = try lstat(directory) {
                guard attributes.isDirectory else {
                    throw isTarget
                        ? RemoteStoreError(.alreadyExists, path: path, message: "a file stands where the directory '\(path)' is to be created")
                        : RemoteStoreError(.notADirectory, path: path, message: "a file stands at '\(Self.displayName(directory))', above '\(path)'")
                }
                return
            }
            guard failure.status == .noSuchFile || failure.status == .failure, Self.parentServerPath(directory) != nil
            else { throw failure }
        }
        try ensureDirectory(Self.parentServerPath(directory) ?? "/", reportingAs: path, isTarget: false)
        do {
            try mkdir(directory)
        } catch let failure as SFTPFailure where !failure.breaksConnection {
            // Someone else may have created it in between.
            guard try lstat(directory)?.isDirectory == true else { throw failure }
        }
    }

    /// The direct children of `directory` that are files or directories, without temporary files.
    func list(_ directory: RemotePath) throws -> [RemoteItem] {
        try entries(of: directory).compactMap { entry in
            guard !entry.name.hasPrefix(RemotePath.reservedTemporaryPrefix),
                let child = try? directory.appending(RemotePath(components: [entry.name]))
            else { return nil }
            return entry.attributes.remoteItem(at: child)
        }
    }

    /// The temporary files (regular files only) directly inside `directory`.
    func temporaryFiles(in directory: RemotePath) throws -> [TemporaryFile] {
        try entries(of: directory).compactMap { entry in
            guard entry.name.hasPrefix(RemotePath.reservedTemporaryPrefix), entry.attributes.remoteKind == .file,
                let item = entry.attributes.remoteItem(at: directory)
            else { return nil }
            return TemporaryFile(directory: directory, name: entry.name, size: item.size, modificationDate: item.modificationDate)
        }
    }

    /// Deletes a temporary file; a missing one is success.
    func deleteTemporaryFile(_ file: TemporaryFile) throws {
        guard file.name.hasPrefix(RemotePath.reservedTemporaryPrefix), !file.name.utf8.contains(UInt8(ascii: "/")) else {
            throw RemoteStoreError(.invalidPath, path: file.directory, message: "'\(file.name)' is not the name of a temporary file")
        }
        let directory = try serverPath(file.directory)
        let location = (directory == "/" ? "" : directory) + "/" + file.name
        do {
            try ignoringMissing(location) { try unlink(location) }
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot delete the temporary file '\(file)'", path: file.directory)
        }
    }

    /// Every entry of the directory `directory`, temporary files included.
    private func entries(of directory: RemotePath) throws -> [(name: String, attributes: LIBSSH2_SFTP_ATTRIBUTES)] {
        let location = try serverPath(directory)
        do {
            return try readDirectory(location)
        } catch let failure as SFTPFailure where !failure.breaksConnection {
            guard let attributes = try stat(location, for: directory) else {
                throw RemoteStoreError(.notFound, path: directory, message: "the directory '\(directory)' does not exist")
            }
            if !attributes.isDirectory {
                throw RemoteStoreError(.notADirectory, path: directory, message: "'\(directory)' is not a directory")
            }
            throw failure.remoteStoreError("cannot list '\(directory)'", path: directory)
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot list '\(directory)'", path: directory)
        }
    }

    /// Deletes the file or the directory tree at `path`; a missing path is success.
    func delete(_ path: RemotePath) throws {
        guard !path.isRoot else {
            throw RemoteStoreError(.invalidPath, path: path, message: "the store's root cannot be deleted; delete its children instead")
        }
        let location = try serverPath(path)
        do {
            guard let attributes = try lstat(location) else { return }
            if attributes.isDirectory {
                try deleteTree(location)
            } else {
                try ignoringMissing(location) { try unlink(location) }
            }
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot delete '\(path)'", path: path)
        }
    }

    /// Deletes everything inside `directory` (temporary files and links included), then the directory.
    private func deleteTree(_ directory: String) throws {
        let entries = try ignoringMissing(directory) { try readDirectory(directory) } ?? []
        for entry in entries {
            let child = directory + "/" + entry.name
            if entry.attributes.isDirectory {
                try deleteTree(child)
            } else {
                try ignoringMissing(child) { try unlink(child) }
            }
        }
        try ignoringMissing(directory) { try rmdir(directory) }
    }

    /// Runs `body`, an operation on `location`, turning "no such file" (someone else deleted it
    /// first) into `nil`. A generic failure (status 4, which servers other than OpenSSH answer
    /// for a missing path) also means `nil` when `location` turns out to be gone.
    @discardableResult
    func ignoringMissing<Result>(_ location: String, _ body: () throws -> Result) throws -> Result? {
        do {
            return try body()
        } catch let failure as SFTPFailure where failure.status == .noSuchFile {
            return nil
        } catch let failure as SFTPFailure where failure.status == .failure {
            guard try lstat(location) == nil else { throw failure }
            return nil
        }
    }

    /// `lstat` for disambiguating a failure, with a connection failure reported for `path`.
    func stat(_ location: String, for path: RemotePath) throws -> LIBSSH2_SFTP_ATTRIBUTES? {
        do {
            return try lstat(location)
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot look up '\(path)'", path: path)
        }
    }

    /// The server path one level up, or `nil` at `/`.
    static func parentServerPath(_ path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of a server path, for messages.
    static func displayName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
