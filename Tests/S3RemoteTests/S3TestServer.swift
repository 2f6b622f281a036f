import Foundation
import RemoteProtocol
import S3Remote
import Testing
import TestSupport

/// The S3 servers `Scripts/test-servers.sh` starts, found through the variables their scripts
/// write: moto (Scripts/test-servers.d/s3.sh, `ROLLSYNC_TEST_S3_*`), a Python mock with
/// signature checks and fault injection, and Ceph's RADOS Gateway (rgw.sh, `ROLLSYNC_TEST_RGW_*`),
/// a production object store, reached through either of its two gateways over one cluster.
enum S3TestServer: String, CaseIterable, CustomStringConvertible, Sendable {
    /// moto, the shared server of the fault-injection and signature tests.
    case moto
    /// Ceph RGW through its first gateway.
    case rgw
    /// Ceph RGW through its second gateway: the same bucket, another radosgw process.
    case rgwSecondGateway

    var description: String { rawValue }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The servers whose tests run: those configured, or all of them with
    /// `ROLLSYNC_REQUIRE_TEST_SERVERS=1` (CI), where a missing server makes its tests fail. With
    /// ``TestServerVariety/onePerBackend``, one of them: RGW if it is one.
    static func available(_ servers: [S3TestServer] = [.moto, .rgw]) -> [S3TestServer] {
        let servers = TestServerVariety.onePerBackend ? [servers.contains(.rgw) ? .rgw : servers[0]] : servers
        let required = environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1"
        let running = servers.filter { required || environment[$0.urlVariable] != nil }
        for server in servers where !running.contains(server) {
            print("Skipping S3 tests on \(server): \(server.urlVariable) not set (run Scripts/test-servers.sh start s3 rgw)")
        }
        return running
    }

    /// True if moto, the server of the suites that need its fault injection, is configured or required.
    static var enabled: Bool { available([.moto]) == [.moto] }

    /// The variable holding the bucket's URL with endpoint, region and style.
    var urlVariable: String {
        switch self {
        case .moto: "ROLLSYNC_TEST_S3_URL"
        case .rgw: "ROLLSYNC_TEST_RGW_URL"
        case .rgwSecondGateway: "ROLLSYNC_TEST_RGW_SECOND_URL"
        }
    }

    /// The prefix of this server's access-key variables.
    private var keyVariablePrefix: String { self == .moto ? "ROLLSYNC_TEST_S3" : "ROLLSYNC_TEST_RGW" }

    /// A test-server variable.
    static func variable(_ name: String) throws -> String {
        guard let value = environment[name] else {
            throw TestServerMissing(variable: name)
        }
        return value
    }

    /// The bucket's URL with endpoint, region and style (`s3://rollsync-test/?endpoint=…`), for `prefix`.
    func url(prefix: String = "") throws -> URL {
        var components = try #require(URLComponents(string: try Self.variable(urlVariable)))
        components.path = "/" + prefix
        return try #require(components.url)
    }

    /// The server's endpoint, `http://127.0.0.1:PORT`.
    func endpoint() throws -> String {
        let components = try #require(URLComponents(string: try Self.variable(urlVariable)))
        return try #require(components.queryItems?.first { $0.name == "endpoint" }?.value)
    }

    /// The test user's access key ID and secret.
    func keys() throws -> (id: String, secret: String) {
        (try Self.variable(keyVariablePrefix + "_ACCESS_KEY_ID"), try Self.variable(keyVariablePrefix + "_SECRET_ACCESS_KEY"))
    }

    /// The configuration of a store rooted at `prefix`, with the test user's keys as settings
    /// and secrets (or other secrets, to test wrong ones).
    func configuration(prefix: String = "", secret: String? = nil, settings: [String: String] = [:]) throws -> RemoteStoreConfiguration {
        let keys = try keys()
        var allSettings = ["access-key-id": keys.id]
        allSettings.merge(settings) { _, new in new }
        return RemoteStoreConfiguration(url: try url(prefix: prefix), settings: allSettings, secrets: ["secret-access-key": secret ?? keys.secret])
    }

    /// A store on the bucket's root (the conformance suite works in a unique directory of its own).
    func rootStore(settings: [String: String] = [:]) throws -> S3RemoteStore {
        try S3RemoteStore(configuration: try configuration(settings: settings), environment: [:])
    }

    /// A store on a fresh, empty prefix of its own.
    func freshStore(settings: [String: String] = [:]) throws -> S3RemoteStore {
        try S3RemoteStore(configuration: try configuration(prefix: "test-\(UUID().uuidString)", settings: settings), environment: [:])
    }

    /// The test bucket's name.
    func bucket() throws -> String {
        try #require(URLComponents(string: try Self.variable(urlVariable))?.host)
    }

    /// Runs the AWS CLI against this server (or the endpoint `arguments` name) with the test
    /// user's keys; returns its output.
    func awsCLI(_ arguments: [String]) async throws -> String {
        let keys = try keys()
        let outcome = try await TestProcess.run(
            try Self.variable("ROLLSYNC_TEST_AWS_CLI"),
            (arguments.first == "--endpoint-url" ? [] : ["--endpoint-url", try endpoint()]) + ["--region", "us-east-1"] + arguments,
            environment: [
                "AWS_ACCESS_KEY_ID": keys.id, "AWS_SECRET_ACCESS_KEY": keys.secret,
                "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_PROFILE": nil,
            ]
        )
        guard outcome.status == 0 else {
            throw AWSCLIFailure(arguments: arguments, output: outcome.standardError)
        }
        return outcome.standardOutput
    }

    /// The keys of the multipart uploads in progress in the test bucket below `prefix`.
    func pendingMultipartUploads(prefix: String) async throws -> [String] {
        let output = try await awsCLI([
            "s3api", "list-multipart-uploads", "--bucket", try bucket(), "--prefix", prefix, "--query", "Uploads[].Key", "--output", "json",
        ])
        return (try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String]) ?? []
    }
}

/// A test server's environment variable is missing.
struct TestServerMissing: Error, CustomStringConvertible {
    let variable: String
    var description: String { "\(variable) is not set: start the servers with Scripts/test-servers.sh start s3 rgw" }
}

/// The AWS CLI failed.
struct AWSCLIFailure: Error, CustomStringConvertible {
    let arguments: [String]
    let output: String
    var description: String { "aws \(arguments.joined(separator: " ")) failed: \(output)" }
}
