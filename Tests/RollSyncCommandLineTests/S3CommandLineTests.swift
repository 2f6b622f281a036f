import Foundation
import Testing
import TestSupport

/// `rollsync` through the moto S3 server of `Scripts/test-servers.sh`, with each credential source
/// the AWS CLI reads: the environment variables, and a profile of the shared files.
@Suite("rollsync through S3", .enabled(if: TestServerEnvironment.s3Enabled))
struct S3CommandLineTests {
    /// A fresh prefix of the test bucket, with the endpoint, region and style in the URL.
    private func remote() throws -> String {
        var components = try #require(URLComponents(string: try TestServerEnvironment.value("ROLLSYNC_TEST_S3_URL")))
        components.path = "/cli-\(UUID().uuidString)"
        return try #require(components.string)
    }

    /// The test user's keys as the environment variables, and no shared files.
    private func keyEnvironment(secret: String? = nil) throws -> [String: String?] {
        [
            "AWS_ACCESS_KEY_ID": try TestServerEnvironment.value("ROLLSYNC_TEST_S3_ACCESS_KEY_ID"),
            "AWS_SECRET_ACCESS_KEY": try secret ?? TestServerEnvironment.value("ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY"),
            "AWS_PROFILE": nil, "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_CONFIG_FILE": "/dev/null",
        ]
    }

    @Test("two databases sync through S3 with the keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
    func keysFromEnvironment() async throws {
        try await ServerSyncTests().expectTwoWaySync(
            remote: try remote(), options: ["--app", "cli-\(UUID().uuidString)"], environment: try keyEnvironment()
        )
    }

    @Test("two databases sync through S3 with AWS_PROFILE: keys from the credentials file, endpoint and region from the config file")
    func profileFromSharedFiles() async throws {
        let workspace = try Workspace()
        let config = workspace.directory.appendingPathComponent("aws-config")
        let endpoint = try TestServerEnvironment.value("ROLLSYNC_TEST_S3_ENDPOINT")
        try """
            [profile rollsync-test]
            region = us-east-1
            endpoint_url = \(endpoint)
            s3 =
              addressing_style = path
            """.write(to: config, atomically: true, encoding: .utf8)
        let bucket = try TestServerEnvironment.value("ROLLSYNC_TEST_S3_BUCKET")
        try await ServerSyncTests().expectTwoWaySync(
            remote: "s3://\(bucket)/cli-\(UUID().uuidString)",
            options: ["--app", "cli-\(UUID().uuidString)"],
            environment: [
                "AWS_ACCESS_KEY_ID": nil, "AWS_SECRET_ACCESS_KEY": nil, "AWS_PROFILE": "rollsync-test",
                "AWS_SHARED_CREDENTIALS_FILE": try TestServerEnvironment.value("ROLLSYNC_TEST_S3_CREDENTIALS_FILE"),
                "AWS_CONFIG_FILE": config.path,
            ]
        )
    }

    @Test("a wrong secret key is an authentication error that names the credential sources, never the secret; the database is untouched")
    func wrongSecret() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let before = workspace.fingerprint(of: database)
        let secret = "wRoNg/SeCrEt+kEy0123456789abcdefghijklmnop"
        var environment = try keyEnvironment(secret: secret)
        environment["HOME"] = workspace.directory.path
        let outcome = try await RollsyncProcess.run(
            ["init", "--db", database, "--remote", try remote(), "--table", "notes", "--app", "cli-\(UUID().uuidString)"],
            environment: environment
        )
        #expect(outcome.status == 3, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("SignatureDoesNotMatch"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("AWS_SECRET_ACCESS_KEY"), "the hint names the credential sources")
        #expect(!outcome.standardError.contains(secret) && !outcome.standardOutput.contains(secret))
        #expect(workspace.fingerprint(of: database) == before)
    }

    @Test("an S3 URL with credentials in it is refused before anything is sent")
    func credentialsInURLAreRefused() async throws {
        let workspace = try Workspace()
        let database = try workspace.makeNotesDatabase("app.sqlite")
        let outcome = try await RollsyncProcess.run(
            ["init", "--db", database, "--remote", "s3://AKIAEXAMPLE@bucket/prefix", "--table", "notes"],
            environment: try keyEnvironment()
        )
        #expect(outcome.status != 0)
        #expect(outcome.standardError.contains("never go in the URL"), "\(outcome.standardError)")
    }
}
