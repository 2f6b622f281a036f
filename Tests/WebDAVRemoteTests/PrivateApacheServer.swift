import Foundation
import RemoteProtocol
import WebDAVRemote

/// An Apache mod_dav server of a test's own, on a free loopback port, configured by the same
/// `write_apache_config` as the shared test server (Scripts/test-servers.d/apache.sh). Tests that
/// stop and restart a server use one of these, never the shared server.
final class PrivateApacheServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is only replaced by start()/stop(), which tests call in sequence.

    /// The instance's folder; its DAV root is `directory/dav`.
    let directory: URL
    /// The loopback port.
    let port: Int
    private var process: Process?

    private static let user = "private-user"
    private static let password = "private-password"

    /// Writes the configuration (Apache must be installed); the server is not started yet.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollsync-apache-\(UUID().uuidString)")
        port = try Self.freePort()
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/test-servers.d/apache.sh")
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: "/bin/bash")
        setup.arguments = [
            "-c", "source \"$1\" && write_apache_config \"$2\" \"$3\" \"$4\" \"$5\"", "setup",
            script.path, directory.path, "\(port)", Self.user, Self.password,
        ]
        try setup.run()
        setup.waitUntilExit()
        guard setup.terminationStatus == 0 else {
            throw RemoteStoreError(.unavailable, message: "write_apache_config failed with status \(setup.terminationStatus)")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The DAV root on disk.
    var davRoot: URL { directory.appendingPathComponent("dav") }

    /// A store on the server's root with retries disabled, so a failure shows at once.
    func store() throws -> WebDAVRemoteStore {
        try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: URL(string: "webdav://127.0.0.1:\(port)/")!,
                settings: ["user": Self.user, "retries": "1"],
                secrets: ["password": Self.password]
            )
        )
    }

    /// Starts Apache in the foreground of a child process and waits until it accepts connections.
    func start() async throws {
        // The test runner's threads block SIGTERM, and a spawned child inherits that mask, so
        // Apache would ignore terminate(): python3 clears the mask before exec'ing it.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
            "/usr/sbin/apache2", "-f", directory.appendingPathComponent("httpd.conf").path, "-DFOREGROUND",
        ]
        try process.run()
        self.process = process
        try await waitUntil("Apache accepts connections on port \(port)") { Self.accepts(port: self.port) }
    }

    /// Stops the server at once (SIGTERM: Apache drops its connections) and waits for it to exit.
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
    }

    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard found else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Polls `condition` every 5 ms until it holds, failing after `timeout`. For waiting on an outside
/// event that sends no notification (a server starting, a file appearing), never as a delay.
func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            throw RemoteStoreError(.timedOut, message: "gave up waiting until \(what)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
