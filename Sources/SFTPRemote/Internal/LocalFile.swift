import Foundation
import RemoteProtocol

import RemoteTransportSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local file an SFTP transfer streams from or to, through a raw file descriptor (no buffering
/// of whole files, no Foundation overhead per chunk).
///
/// A file opened for writing is a temporary file beside the destination: ``commit()`` renames it
/// onto the destination (atomically replacing an existing file), ``discard()`` deletes it. Errors
/// are ``RemoteProtocol/RemoteStoreError/Code/localFile``. Not thread-safe.
final class LocalFile {
    private let descriptor: Int32
    private let path: RemotePath
    private let temporaryURL: URL?
    private let destinationURL: URL
    private var isOpen = true

    /// Opens a regular file for reading.
    init(reading url: URL, for path: RemotePath) throws {
        self.path = path
        destinationURL = url
        temporaryURL = nil
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure("cannot open the local file \(url.path)", path: path) }
        var info = stat()
        if fstat(descriptor, &info) != 0 || info.st_mode & S_IFMT != S_IFREG {
            // deinit closes it: it runs for a class whose initializer throws once every stored
            // property is set. Closing it here too closed whatever descriptor the process had
            // opened under the same number in between (another test's socket, a database).
            throw RemoteStoreError(.localFile, path: path, message: "the local file \(url.path) is not a regular file")
        }
    }

    /// Creates a fresh temporary file in the folder of `url`, to become `url` on ``commit()``.
    init(writingBeside url: URL, for path: RemotePath) throws {
        self.path = path
        destinationURL = url
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            RemotePath.reservedTemporaryPrefix + UUID().uuidString, isDirectory: false
        )
        temporaryURL = temporary
        descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Self.failure("cannot create a file in the local folder \(temporary.deletingLastPathComponent().path)", path: path)
        }
    }

    deinit {
        if isOpen { close(descriptor) }
    }

    /// Reads up to `count` bytes; 0 at the end of the file.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        do {
            return try FileDescriptorIO.read(from: descriptor, into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
        } catch {
            throw Self.failure("cannot read the local file \(destinationURL.path)", path: path, code: error.code)
        }
    }

    /// Writes all `count` bytes.
    func write(_ buffer: UnsafeRawPointer, count: Int) throws {
        do {
            try FileDescriptorIO.write(UnsafeRawBufferPointer(start: buffer, count: count), to: descriptor)
        } catch {
            throw Self.failure("cannot write the local file \(destinationURL.path)", path: path, code: error.code)
        }
    }

    /// Closes the temporary file and renames it onto the destination.
    func commit() throws {
        guard let temporaryURL else { return }
        isOpen = false
        if close(descriptor) != 0 || rename(temporaryURL.path, destinationURL.path) != 0 {
            let error = Self.failure("cannot move the downloaded file to \(destinationURL.path)", path: path)
            unlink(temporaryURL.path)
            throw error
        }
    }

    /// Closes and deletes the temporary file.
    func discard() {
        if isOpen {
            close(descriptor)
            isOpen = false
        }
        if let temporaryURL { unlink(temporaryURL.path) }
    }

    /// The `localFile` error for a failed call, from its `errno` (by default the current one).
    private static func failure(_ message: String, path: RemotePath, code: Int32 = errno) -> RemoteStoreError {
        return RemoteStoreError(
            .localFile,
            path: path,
            message: "\(message): \(String(cString: strerror(code)))",
            underlying: POSIXErrorCode(rawValue: code).map { POSIXError($0) }
        )
    }
}
