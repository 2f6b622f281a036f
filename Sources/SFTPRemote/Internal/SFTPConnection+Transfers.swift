import CLibSSH2
import Foundation
import RemoteProtocol
import RemoteTransportSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Uploads and downloads on one connection, streamed between disk and network through one
/// ``SFTPConnection/transferBufferSize`` buffer, so memory stays bounded whatever the file size.
///
/// Both check for task cancellation between buffers. A cancelled or failed upload removes its
/// remote temporary file (when the connection still works) and leaves the target as it was; a
/// cancelled or failed download leaves no file at the local destination.
extension SFTPConnection {
    /// Uploads `localFile` to a temporary name beside `path`, then renames it into place.
    ///
    /// SFTP v3 cannot rename onto an existing file, and libssh2 1.10 has no
    /// `posix-rename@openssh.com`, so replacing a file means unlink then rename: readers may see no
    /// file for a moment, never a partial one (``RemoteProtocol/RemoteCapabilities/atomicReplace``
    /// is false).
    func upload(from localFile: URL, to path: RemotePath) async throws {
        let (temporary, target) = try writeTemporary(localFile, beside: path)
        try await finishing(temporary, of: path) { try moveIntoPlace(temporary, target, path: path) }
    }

    /// Uploads `localFile` to a temporary name beside `path`, then, holding the target's
    /// ``CreationClaim`` (a hidden directory made with `mkdir`), renames it onto `path` if nothing
    /// stands there.
    ///
    /// The rename alone is not exclusive everywhere: SFTP v3 says it fails onto an existing name
    /// (OpenSSH's server links the new name, then unlinks the old one), but paramiko's server and
    /// others rename over the target, so two racing creators could both succeed. A directory
    /// creation is atomic on every server (`mkdir(2)`), so only one creator at a time holds the
    /// claim, and it looks at the target before renaming. The file is never visible partially.
    /// - Throws: `alreadyExists` if something has that name, or gets it first.
    func createExclusively(from localFile: URL, at path: RemotePath) async throws {
        let (temporary, target) = try writeTemporary(localFile, beside: path)
        let claim = CreationClaim(forTargetNamed: path.components.last ?? "")
        let directory = try serverPath(path.parent ?? .root)
        let claimLocation = (directory == "/" ? "" : directory) + "/" + claim.name
        let alreadyExists = RemoteStoreError(.alreadyExists, path: path, message: "something already exists at '\(path)'")
        try await finishing(temporary, of: path) {
            try await claim.create(
                at: path,
                targetExists: { try lstat(target) != nil },
                claim: { try makeClaim(claimLocation, askingAgain: true) },
                release: { _ = try ignoringMissing(claimLocation) { try rmdir(claimLocation) } },
                place: {
                    do {
                        try rename(temporary, to: target)
                    } catch let failure as SFTPFailure where !failure.breaksConnection {
                        guard try lstat(target) != nil else { throw failure }
                        throw alreadyExists
                    }
                }
            )
        }
    }

    /// Creates the claim directory at `location`: true if this call made it, false if it stands.
    ///
    /// A refused `mkdir` is explained by looking: a claim there is another creator's. One that is
    /// gone again was removed by its holder between the refusal and the look, so the `mkdir` is
    /// sent once more (`askingAgain`); a refusal with no claim after that is a real failure.
    private func makeClaim(_ location: String, askingAgain: Bool) throws -> Bool {
        do {
            try mkdir(location)
            return true
        } catch let failure as SFTPFailure where !failure.breaksConnection {
            if try lstat(location) != nil { return false }
            guard askingAgain else { throw failure }
            return try makeClaim(location, askingAgain: false)
        }
    }

    /// Writes `localFile` to a fresh temporary name beside `path`; returns the server paths of
    /// the temporary file and of the target.
    /// - Throws: `notFound` or `notADirectory` when the parent is missing or a file.
    private func writeTemporary(_ localFile: URL, beside path: RemotePath) throws -> (temporary: String, target: String) {
        let input = try LocalFile(reading: localFile, for: path)
        let target = try serverPath(path)
        let directory = try serverPath(path.parent ?? .root)
        let temporary = (directory == "/" ? "" : directory) + "/" + RemotePath.reservedTemporaryPrefix + UUID().uuidString
        let handle: OpaquePointer
        do {
            handle = try open(temporary, flags: LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_EXCL | LIBSSH2_FXF_TRUNC, mode: 0o644)
        } catch let failure as SFTPFailure where !failure.breaksConnection {
            guard let parent = try stat(directory, for: path) else {
                throw RemoteStoreError(.notFound, path: path, message: "the directory that should hold '\(path)' does not exist")
            }
            guard parent.isDirectory else {
                throw RemoteStoreError(.notADirectory, path: path, message: "the parent of '\(path)' is not a directory")
            }
            throw failure.remoteStoreError("cannot create a file beside '\(path)'", path: path)
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot upload '\(path)'", path: path)
        }
        do {
            try send(input, to: handle, path: path)
        } catch {
            _ = libssh2_sftp_close_handle(handle)
            try? discard(temporary)
            throw Self.uploadError(error, path: path)
        }
        do {
            try closeHandle(handle)
        } catch {
            try? discard(temporary)
            throw Self.uploadError(error, path: path)
        }
        return (temporary, target)
    }

    /// Runs `body`, which puts the finished temporary file in place; if it throws, the temporary
    /// file is removed (when the connection still works) and the connection retired.
    private func finishing(_ temporary: String, of path: RemotePath, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            try? discard(temporary)
            throw Self.uploadError(error, path: path)
        }
    }

    /// Removes a temporary file after a failed upload and retires the connection (requests may
    /// still be in flight); nothing is sent on a broken connection.
    private func discard(_ temporary: String) throws {
        defer { retire() }
        if !isBroken { try ignoringMissing(temporary) { try unlink(temporary) } }
    }

    /// `error` as the upload's error: an ``SFTPFailure`` becomes a ``RemoteStoreError``.
    private static func uploadError(_ error: any Error, path: RemotePath) -> any Error {
        guard let failure = error as? SFTPFailure else { return error }
        return failure.remoteStoreError("cannot upload '\(path)'", path: path)
    }

    /// Streams the local file into the open remote handle, keeping libssh2's write pipeline full:
    /// data handed to libssh2 but not yet acknowledged stays at the front of the buffer (libssh2
    /// requires it to be passed again unchanged), and the rest is refilled from disk.
    private func send(_ input: LocalFile, to handle: OpaquePointer, path: RemotePath) throws {
        let capacity = Self.transferBufferSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!
        RemoteRequestCounter.record()
        var start = 0
        var end = 0
        var endOfFile = false
        while true {
            try Task.checkCancellation()
            if !endOfFile && end - start < capacity / 2 {
                if start > 0 {
                    memmove(base, base + start, end - start)
                    end -= start
                    start = 0
                }
                while end < capacity && !endOfFile {
                    let count = try input.read(into: base + end, count: capacity - end)
                    if count == 0 { endOfFile = true }
                    end += count
                }
            }
            if start == end { return }
            let written = libssh2_sftp_write(handle, base.assumingMemoryBound(to: CChar.self) + start, end - start)
            if written < 0 { throw lastFailure() }
            start += written
        }
    }

    /// Renames the finished temporary file onto `target`, removing an existing file first.
    ///
    /// What stands at `target` is looked at (`lstat`) before the rename, not after a failed one:
    /// servers differ in what renaming a file onto a directory does (OpenSSH refuses with a
    /// generic failure, others move the file *into* the directory or replace an empty one), so
    /// the rename is only ever sent onto nothing. A name that reappears in between (another
    /// client) is examined again, at most three times.
    private func moveIntoPlace(_ temporary: String, _ target: String, path: RemotePath) throws {
        for _ in 0..<3 {
            if let existing = try lstat(target) {
                if existing.isDirectory {
                    throw RemoteStoreError(.isADirectory, path: path, message: "a directory stands at '\(path)'")
                }
                try ignoringMissing(target) { try unlink(target) }
            }
            do {
                try rename(temporary, to: target)
                return
            } catch let failure as SFTPFailure where !failure.breaksConnection {
                guard try lstat(target) != nil else { throw failure }
            }
        }
        throw RemoteStoreError(.io, path: path, message: "'\(path)' kept reappearing while it was being replaced")
    }

    /// Downloads `path` into `localFile` through a temporary file beside it, renamed at the end.
    func download(_ path: RemotePath, to localFile: URL) throws {
        let location = try serverPath(path)
        let handle = try openForReading(location, path: path)
        var handleIsOpen = true
        defer { if handleIsOpen { _ = libssh2_sftp_close_handle(handle) } }
        do {
            var attributes = LIBSSH2_SFTP_ATTRIBUTES()
            RemoteRequestCounter.record()
            if libssh2_sftp_fstat_ex(handle, &attributes, 0) != 0 { throw lastFailure() }
            if attributes.isDirectory {
                throw RemoteStoreError(.isADirectory, path: path, message: "'\(path)' is a directory")
            }
            let output = try LocalFile(writingBeside: localFile, for: path)
            do {
                try receive(from: handle, into: output, path: path)
                handleIsOpen = false
                try closeHandle(handle)
                try output.commit()
            } catch {
                output.discard()
                retire()
                throw error
            }
        } catch let failure as SFTPFailure {
            throw failure.remoteStoreError("cannot download '\(path)'", path: path)
        }
    }

    /// Opens the file at `location` for reading.
    ///
    /// OpenSSH answers "no such file" for a missing file; other servers answer a generic failure
    /// for a missing file and for a directory alike, so then what stands there decides: nothing
    /// is `notFound`, a directory `isADirectory`, and a file (one that appeared in between, as an
    /// upload renamed into place) is opened again, at most three times in all.
    private func openForReading(_ location: String, path: RemotePath) throws -> OpaquePointer {
        var attempt = 1
        while true {
            do {
                return try open(location, flags: LIBSSH2_FXF_READ, mode: 0)
            } catch let failure as SFTPFailure where failure.status == .noSuchFile {
                throw RemoteStoreError(.notFound, path: path, message: "'\(path)' does not exist", underlying: failure)
            } catch let failure as SFTPFailure where !failure.breaksConnection {
                switch try stat(location, for: path)?.isDirectory {
                case nil:
                    throw RemoteStoreError(.notFound, path: path, message: "'\(path)' does not exist", underlying: failure)
                case true?:
                    throw RemoteStoreError(.isADirectory, path: path, message: "'\(path)' is a directory", underlying: failure)
                case false? where attempt < 3:
                    attempt += 1
                case false?:
                    throw failure.remoteStoreError("cannot open '\(path)'", path: path)
                }
            } catch let failure as SFTPFailure {
                throw failure.remoteStoreError("cannot open '\(path)'", path: path)
            }
        }
    }

    /// Streams the remote handle to disk. A large read buffer lets libssh2 request several packets
    /// ahead (it reads ahead up to four times the buffer size).
    private func receive(from handle: OpaquePointer, into output: LocalFile, path: RemotePath) throws {
        let capacity = Self.transferBufferSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!
        RemoteRequestCounter.record()
        while true {
            try Task.checkCancellation()
            let count = libssh2_sftp_read(handle, base.assumingMemoryBound(to: CChar.self), capacity)
            if count == 0 { return }
            if count < 0 { throw lastFailure() }
            try output.write(base, count: count)
        }
    }
}
