import Foundation
import RemoteProtocol
import S3Remote
import TestSupport

/// A moto server of a test's own, on a free loopback port, without signature checking, with the
/// bucket `private-test`: for what the shared server cannot do. moto's signature check refuses
/// `UploadPartCopy` requests that carry `x-amz-copy-source-range` (verified with the curl tool as
/// well), so multipart copy is tested here. Stopped by ``stop()``.
final class PrivateMotoServer: Sendable {
    let port: Int
    private let process: KillableProcess

    /// Starts the server. With `conditionalConflicts`, it is Scripts/test-servers.d/moto-atomic-put.py
    /// answering every conditional PUT of an existing key `409 ConditionalRequestConflict`.
    init(conditionalConflicts: Bool = false) async throws {
        port = try LoopbackPort.unused()
        let arguments = ["-H", "127.0.0.1", "-p", "\(port)"]
        if conditionalConflicts {
            process = try KillableProcess(
                try S3TestServer.variable("ROLLSYNC_TEST_MOTO_PYTHON"), [try S3TestServer.variable("ROLLSYNC_TEST_MOTO_LAUNCHER")] + arguments,
                environment: ["ROLLSYNC_MOTO_CONDITIONAL_CONFLICTS": "always"]
            )
        } else {
            process = try KillableProcess(try S3TestServer.variable("ROLLSYNC_TEST_MOTO_SERVER"), arguments)
        }
        try await waitUntil { LoopbackPort.acceptsConnections(self.port) }
        _ = try await S3TestServer.awsCLI(["--endpoint-url", "http://127.0.0.1:\(port)", "s3api", "create-bucket", "--bucket", "private-test"])
    }

    /// A store on a fresh prefix of the bucket.
    func store(_ adjust: (inout S3RemoteStore.Configuration) -> Void = { _ in }) throws -> S3RemoteStore {
        var configuration = S3RemoteStore.Configuration(
            bucket: "private-test", prefix: "test-\(UUID().uuidString)", endpoint: URL(string: "http://127.0.0.1:\(port)"),
            region: "us-east-1", addressingStyle: .path, credentials: .keys(S3Credentials(accessKeyID: "test", secretAccessKey: "test"))
        )
        adjust(&configuration)
        return try S3RemoteStore(configuration: configuration, environment: [:])
    }

    func stop() async {
        _ = process.send(SIGTERM)
        _ = await process.wait()
    }
}
