import RemoteProtocol
import RemoteStoreConformance
import Testing
import WebDAVRemote

/// The whole contract suite against Apache mod_dav_fs: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct ApacheConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await RemoteStoreConformance(makeStore: { try WebDAVTestServer.apache.rootStore() }).run(check)
    }
}

/// The whole contract suite against wsgidav: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct WsgidavConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await RemoteStoreConformance(makeStore: { try WebDAVTestServer.wsgidav.rootStore() }).run(check)
    }
}

/// The whole contract suite against nginx with dav and dav_ext: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct NginxConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await RemoteStoreConformance(makeStore: { try WebDAVTestServer.nginx.rootStore() }).run(check)
    }
}

/// The whole contract suite against lighttpd with mod_webdav: one reported test per check.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct LighttpdConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await RemoteStoreConformance(makeStore: { try WebDAVTestServer.lighttpd.rootStore() }).run(check)
    }
}
