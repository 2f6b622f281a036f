import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock one `rollsync` process holds on a database while it works on it, so that two runs on
/// the same file (two terminals, a cron job and `watch`) never sync, push or re-base at the same
/// time: the second one **waits** for the first, saying so after a second, up to the busy timeout.
///
/// It is an advisory `flock` on `FILE.rollsync-lock` beside the database, holding the owner's pid;
/// the kernel releases it when the owner exits, however it ends (even killed), so a stale lock never
/// blocks. The file itself stays (it is empty of meaning without the lock). Acquiring polls a
/// non-blocking `flock`, so no thread blocks.
final class DatabaseLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The lock file of the database at `path`.
    static func lockFile(of path: String) -> String { path + ".rollsync-lock" }

    /// Takes the lock of the database at `path`, waiting while another process holds it.
    /// - Parameters:
    ///   - timeout: how long to wait at most, in seconds.
    ///   - waiting: called once, after a second of waiting, with the line to show.
    /// - Throws: ``CommandLineError`` (local database) naming the other process if the wait times
    ///   out, or if the lock file cannot be created.
    static func acquire(for path: String, timeout: Double, waiting: (String) -> Void) async throws -> DatabaseLock {
        let file = lockFile(of: path)
        let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandLineError(
                .localDatabase, "cannot create the lock file \(file): \(String(cString: strerror(errno)))",
                hint: "rollsync needs to write in the database's directory"
            )
        }
        let start = Date()
        var announced = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw CommandLineError(.localDatabase, "cannot lock \(file): \(reason)")
            }
            let waited = Date().timeIntervalSince(start)
            if waited >= timeout {
                let owner = Self.owner(descriptor)
                close(descriptor)
                throw CommandLineError(
                    .localDatabase,
                    "another rollsync is working on \(path)\(owner.map { " (pid \($0))" } ?? ""); waited \(Int(timeout)) s",
                    hint: "run again when it has finished, or wait longer with --busy-timeout SECONDS"
                )
            }
            if !announced && waited >= 1 {
                announced = true
                waiting("waiting for another rollsync working on \(path)\(Self.owner(descriptor).map { " (pid \($0))" } ?? "")…")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return DatabaseLock(descriptor: descriptor)
    }

    /// The pid the current owner wrote into the lock file, if readable.
    private static func owner(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count - 1, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
