import Foundation

/// An Apache mod_dav server of a test's own, on a free loopback port, configured by the same
/// `write_apache_config` as the shared test server (Scripts/test-servers.d/apache.sh). Tests that
/// stop and restart a server use one of these, never the shared server.
public final class PrivateApacheServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is only replaced by start()/stop(), which tests call in sequence.

    /// The Basic/Digest credentials the server accepts.
    public static let user = "private-user"
    public static let password = "private-password"

    /// The loopback port.
    public let port: Int
    private let scratch: TemporaryDirectory
    private var process: SpawnedProcess?

    /// Writes the configuration (Apache must be installed); the server is not started yet.
    public init() async throws {
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

    /// The server's root collection, as a `webdav://` URL.
    public var url: String { "webdav://127.0.0.1:\(port)/" }

    /// The DAV root on disk.
    public var davRoot: URL { scratch.appending("dav") }

    /// Starts Apache in the foreground of a child process and waits until it accepts connections.
    public func start() async throws {
        process = try SpawnedProcess(["/usr/sbin/apache2", "-f", scratch.appending("httpd.conf").path, "-DFOREGROUND"])
        let port = port
        try await waitUntil("Apache accepts connections on port \(port)") { LoopbackPort.acceptsConnections(port) }
    }

    /// Stops the server at once (SIGTERM: Apache drops its connections) and waits for it to exit.
    public func stop() {
        process?.terminate()
        process = nil
    }
}
