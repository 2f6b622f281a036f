import Foundation

/// Whether the tests that run on every server of a backend (the WebDAV servers, the S3 servers)
/// run on one of each only: with `ROLLSYNC_TEST_ONE_SERVER_PER_BACKEND=1`, which
/// Scripts/sanitizers.sh sets for ThreadSanitizer, whose races are in RollingSync's own threads and
/// connection pools whatever the server (every server is tested in the other runs).
public enum TestServerVariety {
    public static var onePerBackend: Bool {
        ProcessInfo.processInfo.environment["ROLLSYNC_TEST_ONE_SERVER_PER_BACKEND"] == "1"
    }
}
