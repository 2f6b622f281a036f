import Foundation
import RemoteProtocol

#if canImport(Glibc)
import Glibc

extension FileRemoteStore {
    /// Notifies changes in `directory` through Linux's inotify: a file created, written, moved in
    /// or out, or deleted there. A dedicated thread waits for the kernel's events (never a thread
    /// of Swift's cooperative pool) and ends, closing its descriptors, when the stream terminates
    /// (its consumer's task cancelled, or the stream released). `nil` if the directory is missing, a symbolic link, or inotify is unavailable
    /// (its watch limit reached). Network file systems mounted here may never deliver events for
    /// other machines' writes: a hint, as ``RemoteStore/changeNotifications(in:)`` says.
    public func changeNotifications(in directory: RemotePath) -> AsyncStream<Void>? {
        let path = directory.isRoot ? fileSystem.path : fileSystem.path + "/" + directory.string
        let watched = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watched >= 0 else { return nil }
        let events = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW)
        guard inotify_add_watch(watched, path, events) >= 0 else {
            Glibc.close(watched)
            return nil
        }
        // A pipe whose write end wakes the thread to stop.
        var stopPipe: [Int32] = [-1, -1]
        guard pipe(&stopPipe) == 0 else {
            Glibc.close(watched)
            return nil
        }
        let (stop, stopRequest) = (stopPipe[0], stopPipe[1])
        _ = fcntl(stop, F_SETFD, FD_CLOEXEC)
        _ = fcntl(stopRequest, F_SETFD, FD_CLOEXEC)
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { _ in
            var one: UInt8 = 1
            _ = Glibc.write(stopRequest, &one, 1)
        }
        let thread = Thread {
            var descriptors = [pollfd(fd: watched, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                descriptors[0].revents = 0
                descriptors[1].revents = 0
                guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { break }
                if descriptors[1].revents != 0 { break }
                guard descriptors[0].revents != 0 else { continue }
                // Drain every pending event; one notification stands for all of them.
                while Glibc.read(watched, &buffer, buffer.count) > 0 {}
                continuation.yield()
            }
            continuation.finish()
            Glibc.close(watched)
            Glibc.close(stop)
            Glibc.close(stopRequest)
        }
        thread.name = "rollingsync.file-notifications"
        thread.start()
        return stream
    }
}
#endif
