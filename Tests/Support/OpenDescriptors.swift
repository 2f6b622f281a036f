import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The test process's open descriptors, read from `/proc/self/fd`, for tests that check what a
/// spawned child could inherit.
public enum OpenDescriptors {
    /// One TCP socket of this process connected to a loopback port.
    public struct ConnectedSocket: Sendable {
        public var descriptor: Int32
        /// Whether the descriptor is closed on `exec` (`FD_CLOEXEC`): a child process never holds it.
        public var closeOnExec: Bool
    }

    /// The open descriptor numbers of this process.
    public static func all() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }.sorted()
    }

    /// The IPv4 TCP sockets of this process whose peer is `port` on this machine. Another test may
    /// open or close descriptors meanwhile; one that closes in between is simply not listed.
    public static func sockets(connectedToPort port: Int) -> [ConnectedSocket] {
        all().compactMap { descriptor in
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) == 0 }
            }
            guard named, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == port else { return nil }
            let flags = fcntl(descriptor, F_GETFD)
            guard flags >= 0 else { return nil }
            return ConnectedSocket(descriptor: descriptor, closeOnExec: flags & FD_CLOEXEC != 0)
        }
    }
}
