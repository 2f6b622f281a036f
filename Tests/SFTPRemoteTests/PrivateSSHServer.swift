import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A private sshd for one test, with the shared server's configuration (same host key, same
/// authorized keys, same data folder) on another port, so the test can stop and restart it
/// without disturbing the shared server.
final class PrivateSSHServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is only touched by the test that owns the server, serially.
    let port: Int
    private let scratch: TemporaryDirectory
    private let configFile: URL
    private var process: SpawnedProcess?

    /// Writes the configuration for a free port; ``start()`` runs the server.
    init(copying sharedConfig: String) throws {
        let port = try Self.unusedPort()
        self.port = port
        let shared = try String(contentsOfFile: sharedConfig, encoding: .utf8)
        let config = shared.split(separator: "\n").map { $0.hasPrefix("Port ") ? "Port \(port)" : String($0) }
        scratch = try TemporaryDirectory(prefix: "sftp-private-sshd")
        configFile = scratch.appending("sshd_config")
        try config.joined(separator: "\n").appending("\n").write(to: configFile, atomically: true, encoding: .utf8)
    }

    deinit {
        stop()
    }

    /// Starts sshd and returns once it accepts connections.
    func start() async throws {
        let sshd = try SpawnedProcess(["/usr/sbin/sshd", "-D", "-e", "-f", configFile.path])
        process = sshd
        let port = port
        try await sshd.waitUntil("the private sshd listens on port \(port)") { Self.accepts(port) }
    }

    /// Kills the listener and every session process below it (a dropped server, as after a crash).
    func stop() {
        process?.stop()
        process = nil
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A loopback port nothing listens on right now.
    static func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestSupportError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
