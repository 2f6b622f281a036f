#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

/// Reading and writing raw file descriptors, the way every backend streams a local file: on Linux
/// (Glibc) and macOS (Darwin) alike, with calls interrupted by a signal (`EINTR`) made again and
/// short writes completed.
///
/// The calls block: use them on a thread of your own (a ``DedicatedThreadExecutor``, a libcurl or
/// libssh2 callback) or for a local disk, never for a pipe or socket on Swift's cooperative pool.
public enum FileDescriptorIO {
    /// Reads up to `buffer.count` bytes from `descriptor` into `buffer`.
    ///
    /// - Returns: the number of bytes read, which may be fewer than asked; 0 at the end of the
    ///   file (or for an empty buffer).
    /// - Throws: the ``SystemCallError`` of a failed read (`EAGAIN` included, for a
    ///   non-blocking descriptor with nothing to read).
    public static func read(from descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try SystemCallError.retryingInterrupts { systemRead(descriptor, base, buffer.count) }
    }

    /// Writes every byte of `bytes` to `descriptor`, continuing after short writes.
    ///
    /// - Throws: the ``SystemCallError`` of a failed write (`ENOSPC`, `EIO`…); some bytes may
    ///   have been written before it.
    public static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemCallError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            offset += try SystemCallError.retryingInterrupts { systemWrite(descriptor, base + offset, bytes.count - offset) }
        }
    }
}
