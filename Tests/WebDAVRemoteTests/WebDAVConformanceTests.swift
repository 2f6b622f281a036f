import RemoteProtocol
import RemoteStoreConformance
import Testing
import WebDAVRemote

/// The whole contract suite against each WebDAV test server (Apache mod_dav_fs, wsgidav, nginx with
/// dav_ext, lighttpd mod_webdav): one reported test per server and check. A check a server cannot
/// pass is skipped with its written reason (``WebDAVTestServer/skippedChecks``).
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct WebDAVConformanceTests {
    @Test(arguments: WebDAVTestServer.tested, RemoteStoreConformance.Check.allCases)
    func conformance(_ server: WebDAVTestServer, _ check: RemoteStoreConformance.Check) async throws {
        try await server.conformanceSuite().run(check)
    }
}
