import Foundation
import RemoteProtocol
import TestSupport
import WebDAVRemote

/// An Apache mod_dav server of a test's own, on a free loopback port, configured by the same
/// `write_apache_config` as the shared test server (Scripts/test-servers.d/apache.sh). Tests that
/// stop and restart a server use one of these, never the shared server.
final class PrivateApacheServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is only replaced by start()/stop(), which tests call in sequence.

    /// The loopback port.
    let port: Int
    private let scratch: TemporaryDirectory
    private var process: SpawnedProcess?

    private static let user = "private-user"
    private static let password = "private-password"

    /// Writes the configuration (Apache must be installed); the server is not started yet.
    init() async throws {
        scratch = try TemporaryDirectory(prefix: "rollsync-apache")
        port = try LoopbackPort.unused()
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/test-servers.d/apache.sh")
        try await TestProcess.runChecked("/bin/bash", [
            "-c", "source \"$1\" && write_apache_config \"$2\" \"$3\" \"$4\" \"$5\"", "setup",
            script.path, scratch.url.path, "\(port)", Self.user, Self.password,
        ])
    }

    deinit {
        stop()
    }

    /// The DAV root on disk.
    var davRoot: URL { scratch.appending("dav") }

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
        let apache = try SpawnedProcess(["/usr/sbin/apache2", "-f", scratch.appending("httpd.conf").path, "-DFOREGROUND"])
        process = apache
        let port = port
        try await waitUntil("Apache accepts connections on port \(port)") { LoopbackPort.acceptsConnections(port) }
    }

    /// Stops the server at once (SIGTERM: Apache drops its connections) and waits for it to exit.
    func stop() {
        process?.terminate()
        process = nil
    }
}
