#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import RemoteTransportSupport

/// An open file or directory descriptor, closed when the last reference goes away.
///
/// Directory descriptors anchor every file-system call of FileRemote: names are always resolved
/// relative to an open directory with `*at` calls, so a path that changes between a check and a
/// use cannot redirect the call elsewhere.
final class FileDescriptor: Sendable {
    /// The descriptor number.
    let rawValue: Int32

    private init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit {
        close(rawValue)
    }

    /// Opens the directory at the absolute `path` (which may be a symbolic link).
    static func openDirectory(atPath path: String) throws(SystemCallError) -> FileDescriptor {
        let fd = try SystemCallError.retryingInterrupts { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens the file at the absolute `path` for reading (following symbolic links: local files
    /// are the caller's own).
    static func openFileForReading(atPath path: String) throws(SystemCallError) -> FileDescriptor {
        let fd = try SystemCallError.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens the directory `name` inside this directory, refusing to follow a symbolic link
    /// (a link fails with `ENOTDIR`, like a file).
    func openDirectory(named name: String) throws(SystemCallError) -> FileDescriptor {
        let fd = try SystemCallError.retryingInterrupts {
            openat(rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens the file `name` inside this directory for reading, refusing to follow a symbolic link
    /// (`ELOOP`). `O_NONBLOCK` keeps a FIFO that appeared in a race from blocking the open.
    func openFileForReading(named name: String) throws(SystemCallError) -> FileDescriptor {
        let fd = try SystemCallError.retryingInterrupts {
            openat(rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Creates the new file `name` inside this directory for writing; fails with `EEXIST` if
    /// anything (even a dangling symbolic link) is there.
    func createFile(named name: String) throws(SystemCallError) -> FileDescriptor {
        let fd = try SystemCallError.retryingInterrupts {
            openat(rawValue, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Creates the directory `name` inside this directory.
    func makeDirectory(named name: String) throws(SystemCallError) {
        _ = try SystemCallError.retryingInterrupts { mkdirat(rawValue, name, 0o777) }
    }

    /// The status of `name` inside this directory, without following a symbolic link; `nil` if
    /// nothing is there.
    func status(ofEntry name: String) throws(SystemCallError) -> FileStatus? {
        var info = stat()
        do {
            _ = try SystemCallError.retryingInterrupts { fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) }
        } catch where error.code == ENOENT {
            return nil
        }
        return FileStatus(info)
    }

    /// The status of this descriptor's own file or directory.
    func status() throws(SystemCallError) -> FileStatus {
        var info = stat()
        _ = try SystemCallError.retryingInterrupts { fstat(rawValue, &info) }
        return FileStatus(info)
    }

    /// Removes the entry `name` (a file or symbolic link, or an empty directory when
    /// `isDirectory`) from this directory.
    func removeEntry(named name: String, isDirectory: Bool) throws(SystemCallError) {
        _ = try SystemCallError.retryingInterrupts { unlinkat(rawValue, name, isDirectory ? AT_REMOVEDIR : 0) }
    }

    /// Renames `name` to `newName` inside this directory, atomically replacing a file there.
    func renameEntry(_ name: String, to newName: String) throws(SystemCallError) {
        _ = try SystemCallError.retryingInterrupts { renameat(rawValue, name, rawValue, newName) }
    }

    /// Gives the entry `name` of this directory a second name, `newName`; fails with `EEXIST` if
    /// anything has that name (an atomic "create if absent").
    func linkEntry(_ name: String, to newName: String) throws(SystemCallError) {
        _ = try SystemCallError.retryingInterrupts { linkat(rawValue, name, rawValue, newName, 0) }
    }

    /// Flushes the file's data, or the directory's entries, to stable storage.
    func synchronize() throws(SystemCallError) {
        _ = try SystemCallError.retryingInterrupts { fsync(rawValue) }
    }

    /// Reads up to `buffer.count` bytes; returns the number read, 0 at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try FileDescriptorIO.read(from: rawValue, into: buffer)
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        try FileDescriptorIO.write(bytes, to: rawValue)
    }

    /// The names in this directory, except `.` and `..`, as the bytes on disk decoded as UTF-8;
    /// names that are not valid UTF-8 are left out (no ``RemotePath`` can name them).
    func entryNames() throws(SystemCallError) -> [String] {
        // fdopendir takes ownership of the descriptor it is given, so give it a duplicate.
        let duplicate = try SystemCallError.retryingInterrupts { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) }
        guard let stream = fdopendir(duplicate) else {
            let error = SystemCallError.current
            close(duplicate)
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .current }
                return names
            }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { bytes in
                String(validating: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let name, name != ".", name != ".." {
                names.append(name)
            }
        }
    }
}
