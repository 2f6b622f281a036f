import Foundation
import TestSupport

/// A private sshd for one test, with the shared server's configuration (same host key, same
/// authorized keys, same data folder) on another port, so the test can stop and restart it
/// without disturbing the shared server.
final class PrivateSSHServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is only touched by the test that owns the server, serially.
    let port: Int
    private let scratch: TemporaryDirectory
    private let configFile: URL
    private var process: SpawnedProcess?

    /// Writes the configuration for a free port; ``start()`` runs the server. `overriding` replaces
    /// (or adds) options of the shared configuration, such as `MaxStartups` or `KexAlgorithms`.
    init(copying sharedConfig: String, overriding options: [String: String] = [:]) throws {
        let port = try LoopbackPort.unused()
        self.port = port
        let shared = try String(contentsOfFile: sharedConfig, encoding: .utf8)
        let overrides = options.merging(["Port": "\(port)"]) { $1 }
        var config = shared.split(separator: "\n").map { line in
            let keyword = String(line.prefix { $0 != " " })
            return overrides[keyword].map { "\(keyword) \($0)" } ?? String(line)
        }
        let present = Set(config.map { String($0.prefix { $0 != " " }) })
        config += overrides.filter { !present.contains($0.key) }.map { "\($0.key) \($0.value)" }
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
        try await waitUntil("the private sshd listens on port \(port)") { LoopbackPort.acceptsConnections(port) }
    }

    /// Kills the listener and every session process below it (a dropped server, as after a crash).
    func stop() {
        process?.stop()
        process = nil
    }
}
