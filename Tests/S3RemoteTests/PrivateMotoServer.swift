import Foundation
import RemoteProtocol
import S3Remote
import TestSupport

/// A moto server of a test's own, on a free loopback port, without signature checking, with the
/// bucket `private-test`, that answers every conditional PUT of an existing key
/// `409 ConditionalRequestConflict` (Scripts/test-servers.d/moto-atomic-put.py with
/// `ROLLSYNC_MOTO_CONDITIONAL_CONFLICTS=always`): what the shared servers cannot be made to do.
/// Stopped by ``stop()``.
final class PrivateMotoServer: Sendable {
    let port: Int
    private let process: KillableProcess

    /// Starts the server and makes its bucket.
    init() async throws {
        port = try LoopbackPort.unused()
        process = try KillableProcess(
            try S3TestServer.variable("ROLLSYNC_TEST_MOTO_PYTHON"),
            [try S3TestServer.variable("ROLLSYNC_TEST_MOTO_LAUNCHER"), "-H", "127.0.0.1", "-p", "\(port)"],
            environment: ["ROLLSYNC_MOTO_CONDITIONAL_CONFLICTS": "always"]
        )
        try await waitUntil("the private moto listens on port \(port)") { LoopbackPort.acceptsConnections(self.port) }
        _ = try await S3TestServer.moto.awsCLI(["--endpoint-url", "http://127.0.0.1:\(port)", "s3api", "create-bucket", "--bucket", "private-test"])
    }

    /// A store on a fresh prefix of the bucket.
    func store() throws -> S3RemoteStore {
        let configuration = S3RemoteStore.Configuration(
            bucket: "private-test", prefix: "test-\(UUID().uuidString)", endpoint: URL(string: "http://127.0.0.1:\(port)"),
            region: "us-east-1", addressingStyle: .path, credentials: .keys(S3Credentials(accessKeyID: "test", secretAccessKey: "test"))
        )
        return try S3RemoteStore(configuration: configuration, environment: [:])
    }

    func stop() async {
        _ = process.send(SIGTERM)
        _ = await process.wait()
    }
}
