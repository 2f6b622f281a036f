import Foundation
import RemoteProtocol
import S3Remote
import Testing
import TestSupport

/// The moto S3 server started by `Scripts/test-servers.sh` (Scripts/test-servers.d/s3.sh), found
/// through the `ROLLSYNC_TEST_S3_*` variables that script writes.
///
/// Without them the suites skip with a printed reason, unless `ROLLSYNC_REQUIRE_TEST_SERVERS=1`
/// (CI), where a missing server makes the tests fail instead.
enum S3TestServer {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// True if the server is configured, or required.
    static var enabled: Bool {
        if environment["ROLLSYNC_TEST_S3_URL"] != nil || environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1" { return true }
        print("Skipping S3 server tests: ROLLSYNC_TEST_S3_URL not set (run Scripts/test-servers.sh start s3)")
        return false
    }

    /// A test-server variable.
    static func variable(_ name: String) throws -> String {
        guard let value = environment[name] else {
            throw TestServerMissing(variable: name)
        }
        return value
    }

    /// The bucket's URL with endpoint, region and style (`s3://rollsync-test/?endpoint=…`), for `prefix`.
    static func url(prefix: String = "") throws -> URL {
        let base = try variable("ROLLSYNC_TEST_S3_URL")
        var components = try #require(URLComponents(string: base))
        components.path = "/" + prefix
        return try #require(components.url)
    }

    /// The configuration of a store rooted at `prefix`, with the test user's keys as settings
    /// and secrets (or other secrets, to test wrong ones).
    static func configuration(prefix: String = "", secret: String? = nil, settings: [String: String] = [:]) throws
        -> RemoteStoreConfiguration
    {
        var allSettings = ["access-key-id": try variable("ROLLSYNC_TEST_S3_ACCESS_KEY_ID")]
        allSettings.merge(settings) { _, new in new }
        return RemoteStoreConfiguration(
            url: try url(prefix: prefix),
            settings: allSettings,
            secrets: ["secret-access-key": try secret ?? variable("ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY")]
        )
    }

    /// A store on the bucket's root (the conformance suite works in a unique directory of its own).
    static func rootStore() throws -> S3RemoteStore {
        try S3RemoteStore(configuration: try configuration(), environment: [:])
    }

    /// A store on a fresh, empty prefix of its own.
    static func freshStore(settings: [String: String] = [:]) throws -> S3RemoteStore {
        try S3RemoteStore(configuration: try configuration(prefix: "test-\(UUID().uuidString)", settings: settings), environment: [:])
    }
}

/// A test server's environment variable is missing.
struct TestServerMissing: Error, CustomStringConvertible {
    let variable: String
    var description: String { "\(variable) is not set: start the servers with Scripts/test-servers.sh start s3" }
}

extension S3TestServer {
    /// The test bucket's name.
    static func bucket() throws -> String {
        try variable("ROLLSYNC_TEST_S3_BUCKET")
    }

    /// Runs the AWS CLI against the test server with the test user's keys; returns its output.
    static func awsCLI(_ arguments: [String]) async throws -> String {
        let outcome = try await TestProcess.run(
            try variable("ROLLSYNC_TEST_AWS_CLI"),
            (arguments.first == "--endpoint-url" ? [] : ["--endpoint-url", try variable("ROLLSYNC_TEST_S3_ENDPOINT")]) + ["--region", "us-east-1"]
                + arguments,
            environment: [
                "AWS_ACCESS_KEY_ID": try variable("ROLLSYNC_TEST_S3_ACCESS_KEY_ID"),
                "AWS_SECRET_ACCESS_KEY": try variable("ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY"),
                "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_PROFILE": nil,
            ]
        )
        guard outcome.status == 0 else {
            throw AWSCLIFailure(arguments: arguments, output: outcome.standardError)
        }
        return outcome.standardOutput
    }

    /// The keys of the multipart uploads in progress in the test bucket below `prefix`.
    static func pendingMultipartUploads(prefix: String) async throws -> [String] {
        let output = try await awsCLI([
            "s3api", "list-multipart-uploads", "--bucket", try bucket(), "--prefix", prefix, "--query", "Uploads[].Key", "--output", "json",
        ])
        return (try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String]) ?? []
    }
}

/// The AWS CLI failed.
struct AWSCLIFailure: Error, CustomStringConvertible {
    let arguments: [String]
    let output: String
    var description: String { "aws \(arguments.joined(separator: " ")) failed: \(output)" }
}
