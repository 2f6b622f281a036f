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
