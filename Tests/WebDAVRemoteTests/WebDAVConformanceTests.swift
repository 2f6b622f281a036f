import RemoteProtocol
import RemoteStoreConformance
import Testing
import WebDAVRemote

/// The whole contract suite against Apache mod_dav_fs: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct ApacheConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await WebDAVTestServer.apache.conformanceSuite().run(check)
    }
}

/// The whole contract suite against wsgidav: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct WsgidavConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await WebDAVTestServer.wsgidav.conformanceSuite().run(check)
    }
}

/// The whole contract suite against nginx with dav and dav_ext: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct NginxConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await WebDAVTestServer.nginx.conformanceSuite().run(check)
    }
}

/// The whole contract suite against lighttpd with mod_webdav: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct LighttpdConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await WebDAVTestServer.lighttpd.conformanceSuite().run(check)
    }
}
