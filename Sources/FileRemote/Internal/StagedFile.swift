import Foundation
import RemoteProtocol

/// A new file written under a temporary name in the directory of its final name, and renamed
/// into place only once complete, so that no reader ever sees it partially written.
///
/// The temporary name is ``RemotePath/reservedTemporaryPrefix`` followed by a UUID, which no
/// ``RemotePath`` can name and ``FileRemoteStore/list(_:)`` never shows. ``commit(as:)`` flushes
/// the file, renames it (atomically replacing an existing file) and flushes the directory, so the
/// new content survives a crash once the call returns.
struct StagedFile: Sendable {
    /// The directory that holds the temporary file and will hold the final one.
    let directory: FileDescriptor
    /// The temporary file's name in ``directory``.
    let temporaryName: String
    /// The temporary file, open for writing.
    let file: FileDescriptor
    /// Where failures are reported: the remote destination or the local file.
    let context: FailureContext

    /// Creates an empty temporary file in `directory`.
    init(in directory: FileDescriptor, reportingAs context: FailureContext) throws(RemoteStoreError) {
        self.directory = directory
        self.context = context
        temporaryName = RemotePath.reservedTemporaryPrefix + UUID().uuidString
        do {
            file = try directory.createFile(named: temporaryName)
        } catch {
            throw context.error(error, "create a temporary file for")
        }
    }

    /// Appends the next chunk of `source` (at most `buffer.count` bytes) and returns true, or
    /// returns false once `source` is exhausted.
    func appendChunk(
        from source: FileDescriptor,
        reportingAs sourceContext: FailureContext,
        using buffer: UnsafeMutableRawBufferPointer
    ) throws(RemoteStoreError) -> Bool {
        let count: Int
        do {
            count = try source.read(into: buffer)
        } catch {
            throw sourceContext.error(error, "read")
        }
        guard count > 0 else { return false }
        do {
            try file.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        } catch {
            throw context.error(error, "write")
        }
        return true
    }

    /// Makes the content durable and visible under `name`, replacing any file there, or, when
    /// `exclusively`, only if nothing has that name: the finished file is then hard-linked to
    /// `name` (`linkat` fails with `EEXIST`, reported as `alreadyExists`) and its temporary name
    /// removed, so it is never visible partially either way.
    func commit(as name: String, exclusively: Bool = false) throws(RemoteStoreError) {
        do {
            try file.synchronize()
        } catch {
            throw context.error(error, "flush the temporary file of")
        }
        do {
            if exclusively {
                try directory.linkEntry(temporaryName, to: name)
                try directory.removeEntry(named: temporaryName, isDirectory: false)
            } else {
                try directory.renameEntry(temporaryName, to: name)
            }
        } catch {
            throw context.error(error, exclusively ? "create exclusively" : "move the finished file into place at")
        }
        do {
            try directory.synchronize()
        } catch {
            throw context.error(error, "flush the directory of")
        }
    }

    /// Removes the temporary file (after a failure or cancellation); does nothing once committed.
    func discard() {
        try? directory.removeEntry(named: temporaryName, isDirectory: false)
    }
}
