import Foundation
import Synchronization

@testable import FileRemote

#if canImport(Glibc)
import Glibc
#endif

/// The writing end of a FIFO that a test feeds to an upload. Its blocking calls run on a thread
/// of its own, so they never wait behind the upload they are feeding.
final class FIFOWriter: Sendable {
    private let thread = FileIOThreads(threadCount: 1)
    private let descriptor = Mutex<Int32>(-1)

    /// Opens `fifo` for writing; returns once a reader has opened it too.
    func open(_ fifo: URL) async throws {
        try await thread.run { [self] _ in
            let fd = Glibc.open(fifo.path(percentEncoded: false), O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            descriptor.withLock { $0 = fd }
        }
    }

    /// Writes `byteCount` bytes; returns once the reader has taken all but what the pipe buffers.
    func write(byteCount: Int) async throws {
        try await thread.run { [self] buffer in
            let fd = descriptor.withLock { $0 }
            var remaining = byteCount
            while remaining > 0 {
                let count = Glibc.write(fd, buffer.baseAddress, min(remaining, buffer.count))
                guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                remaining -= count
            }
        }
    }

    deinit {
        descriptor.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
        }
    }

    /// Closes the writing end: the reader sees the end of the file.
    func close() async {
        _ = try? await thread.run { [self] _ in
            descriptor.withLock { fd in
                if fd >= 0 { Glibc.close(fd) }
                fd = -1
            }
        }
    }
}
