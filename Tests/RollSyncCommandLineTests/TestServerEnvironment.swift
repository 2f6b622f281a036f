import Foundation
import Testing

/// The real servers `Scripts/test-servers.sh` starts, as its `ROLLSYNC_TEST_*` variables describe
/// them. Without the variables the server suites skip, unless `ROLLSYNC_REQUIRE_TEST_SERVERS=1`
/// (CI), where a missing variable fails the test instead.
enum TestServerEnvironment {
    static let environment = ProcessInfo.processInfo.environment
    static let required = environment["ROLLSYNC_REQUIRE_TEST_SERVERS"] == "1"

    /// True if the SFTP server is configured, or servers are required.
    static let sftpEnabled = required || environment["ROLLSYNC_TEST_SFTP_URL"] != nil
    /// True if the WebDAV servers are configured, or servers are required.
    static let webDAVEnabled = required || environment["ROLLSYNC_TEST_WEBDAV_APACHE_URL"] != nil
    /// True if the S3 server (moto) is configured, or servers are required.
    static let s3Enabled = required || environment["ROLLSYNC_TEST_S3_URL"] != nil

    /// The value of `name`; fails the test if it is missing (only reached when enabled).
    static func value(_ name: String) throws -> String {
        try #require(environment[name], "\(name) is not set: the test servers did not start (run Scripts/test.sh)")
    }
}
