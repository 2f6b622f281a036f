import Foundation
import RemoteProtocol

extension FileRemoteStore {
    /// Deletes the temporary files that interrupted transfers left behind (a crash, a killed
    /// process, a lost mount) in `directory` and every directory below it, and returns how many
    /// were deleted.
    ///
    /// Such files are harmless: their names start with ``RemotePath/reservedTemporaryPrefix``, so
    /// ``list(_:)`` never shows them and no ``RemotePath`` can name them; they go when their
    /// directory is deleted. This reclaims their space in directories that live on.
    ///
    /// Only files whose modification time is more than `age` ago are deleted, so transfers in
    /// progress (here or on another machine sharing the folder) are left alone: choose an age
    /// longer than any transfer takes. Symbolic links are never followed during the walk.
    ///
    /// - Throws: ``RemoteStoreError`` as ``list(_:)`` for `directory`, or for a directory or file
    ///   that cannot be read or removed on the way; `CancellationError` between directories.
    ///
    /// ``temporaryFiles(in:)`` and ``deleteTemporaryFile(_:)`` do the same for one directory,
    /// as every store may.
    @discardableResult
    public func removeLeftoverTemporaryFiles(
        in directory: RemotePath = .root,
        olderThan age: Duration
    ) async throws -> Int {
        let cutoff = Date.now.addingTimeInterval(-TimeInterval(age.components.seconds))
        var pending = [directory]
        var removed = 0
        while let next = pending.popLast() {
            try Task.checkCancellation()
            let sweep = try await threads.run { _ in
                try fileSystem.removeTemporaryFiles(in: next, modifiedBefore: cutoff)
            }
            removed += sweep.removedCount
            pending += sweep.subdirectories
        }
        return removed
    }
}

extension FileRemoteStore {
    /// The temporary files directly inside `directory`, with their sizes and modification times.
    public func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] {
        try Task.checkCancellation()
        return try await threads.run { _ in try fileSystem.temporaryFiles(in: directory) }
    }

    /// Deletes one temporary file; a missing one is success.
    public func deleteTemporaryFile(_ file: TemporaryFile) async throws {
        try Task.checkCancellation()
        try await threads.run { _ in try fileSystem.removeTemporaryFile(named: file.name, in: file.directory) }
    }
}
