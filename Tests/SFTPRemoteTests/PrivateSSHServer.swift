import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private sshd for one test, with the shared server's configuration (same host key, same
/// authorized keys, same data folder) on another port, so the test can stop and restart it
/// without disturbing the shared server.
///
/// sshd is started with posix_spawn, not Foundation's `Process`: on Linux, Foundation's child
/// monitor blocks in `wait4` on a long-running child when another child exits, which would stall
/// every other test that runs a tool.
final class PrivateSSHServer: @unchecked Sendable {
    // @unchecked Sendable: `pid` is only touched by the test that owns the server, serially.
    let port: Int
    private let configFile: URL
    private var pid: pid_t?

    /// Writes the configuration for a free port; ``start()`` runs the server.
    init(copying sharedConfig: String) throws {
        let port = try Self.unusedPort()
        self.port = port
        let shared = try String(contentsOfFile: sharedConfig, encoding: .utf8)
        let config = shared.split(separator: "\n").map { $0.hasPrefix("Port ") ? "Port \(port)" : String($0) }
        configFile = try TestProcess.temporaryFolder().appendingPathComponent("sshd_config")
        try config.joined(separator: "\n").appending("\n").write(to: configFile, atomically: true, encoding: .utf8)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: configFile.deletingLastPathComponent())
    }

    /// Starts sshd and returns once it accepts connections.
    func start() async throws {
        let arguments = ["/usr/sbin/sshd", "-D", "-e", "-f", configFile.path]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var child: pid_t = 0
        guard posix_spawn(&child, arguments[0], &actions, nil, argv, environ) == 0 else {
            throw TestProcess.Failure(description: "cannot start /usr/sbin/sshd")
        }
        pid = child
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if Self.accepts(port) { return }
            await Task.yield()
        }
        throw TestProcess.Failure(description: "the private sshd did not start listening on port \(port)")
    }

    /// Kills the listener and every session process below it (a dropped server, as after a crash).
    func stop() {
        guard let listener = pid else { return }
        for child in Self.descendants(of: listener) { kill(child, SIGKILL) }
        kill(listener, SIGKILL)
        waitpid(listener, nil, 0)
        pid = nil
    }

    private static func descendants(of root: Int32) -> [Int32] {
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
                let parent = Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
            else { continue }
            parents[pid] = parent
        }
        var result: [Int32] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            result += children
            frontier += children
        }
        return result
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
        guard bound else { throw TestProcess.Failure(description: "no free loopback port") }
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
