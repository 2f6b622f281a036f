import Foundation
import RemoteProtocol
import RemoteTransportSupport
import Testing
import WebDAVRemote

/// Credentials from every source, Basic and Digest, and refusals.
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct WebDAVAuthenticationTests {
    @Test(arguments: WebDAVTestServer.tested)
    func wrongPasswordThrowsAuthenticationFailedWithoutLeakingIt(_ server: WebDAVTestServer) async throws {
        let configuration = try await server.freshConfiguration(password: "wrong-secret-xyz")
        let store = try WebDAVRemoteStore(configuration: configuration)
        do {
            _ = try await store.list(.root)
            Issue.record("a wrong password was accepted")
        } catch let error as RemoteStoreError {
            #expect(error.code == .authenticationFailed)
            #expect(!error.isRetryable)
            #expect(!"\(error)".contains("wrong-secret-xyz"))
        }
        await store.close()
    }

    @Test func digestAuthenticationWorksForEveryMethod() async throws {
        let store = try await WebDAVTestServer.apacheDigest.freshStore(auth: "digest")
        try await store.createDirectory(at: "d/e")
        try await store.write(Data(repeating: 1, count: 300_000), to: "d/e/file")
        try await store.copy("d/e/file", to: "d/copy")
        #expect(try await store.read("d/copy") == Data(repeating: 1, count: 300_000))
        #expect(try await store.list("d").count == 2)
        try await store.delete("d")
        await store.close()
    }

    @Test func basicOnlyIsRefusedByADigestServer() async throws {
        let configuration = try await WebDAVTestServer.apacheDigest.freshConfiguration(auth: "digest")
        var basic = configuration
        basic.settings["auth"] = "basic"
        let store = try WebDAVRemoteStore(configuration: basic)
        try await expectCode(.authenticationFailed) { _ = try await store.list(.root) }
        await store.close()
    }

    @Test func passwordFromEnvironmentVariable() async throws {
        var configuration = try await WebDAVTestServer.wsgidav.freshConfiguration()
        let password = try #require(configuration.secrets["password"])
        configuration.secrets["password"] = nil
        configuration.settings["password-env"] = "ROLLSYNC_TEST_DAV_SECRET"
        let store = try WebDAVRemoteStore(configuration: configuration, environment: ["ROLLSYNC_TEST_DAV_SECRET": password])
        #expect(try await store.list(.root).isEmpty)
        await store.close()
        #expect(throws: RemoteStoreError.self) {
            _ = try WebDAVRemoteStore(configuration: configuration, environment: [:])
        }
    }

    @Test func passwordFromNetrcFile() async throws {
        var configuration = try await WebDAVTestServer.apache.freshConfiguration()
        let password = try #require(configuration.secrets["password"])
        configuration.secrets["password"] = nil
        let netrc = try LocalScratchFile()
        defer { netrc.remove() }
        let host = try #require(configuration.url.host)
        let user = try WebDAVTestServer.credentials().user
        try Data("machine \(host) login \(user) password \(password)\n".utf8).write(to: netrc.url)
        configuration.settings["netrc-file"] = netrc.url.path
        let store = try WebDAVRemoteStore(configuration: configuration)
        #expect(try await store.list(.root).isEmpty)
        await store.close()
    }

    @Test func typedConfigurationOpensTheStore() async throws {
        let configuration = try await WebDAVTestServer.apache.freshConfiguration()
        let (user, password) = try WebDAVTestServer.credentials()
        var typed = WebDAVRemoteStore.Configuration(url: configuration.url, user: user, password: password)
        typed.retryPolicy = RetryPolicy(maximumAttempts: 2)
        let store = try WebDAVRemoteStore(configuration: typed)
        try await store.write(Data("typed".utf8), to: "typed.txt")
        #expect(try await store.read("typed.txt") == Data("typed".utf8))
        await store.close()
    }

    @Test func passwordComesFromTheSecretThenTheVariableThenNetrcUnlessOff() throws {
        let netrc = try LocalScratchFile()
        defer { netrc.remove() }
        try Data("machine dav.example.com login alice password from-netrc\n".utf8).write(to: netrc.url)
        let url = URL(string: "webdavs://dav.example.com/sync")!
        func read(_ settings: [String: String], secrets: [String: String] = [:]) throws -> WebDAVRemoteStore.Configuration {
            try WebDAVRemoteStore.Configuration(
                RemoteStoreConfiguration(url: url, settings: settings.merging(["netrc-file": netrc.url.path]) { $1 }, secrets: secrets),
                environment: ["DAV_SECRET": "from-variable"]
            )
        }
        let fromNetrc = try read([:])
        #expect(fromNetrc.user == "alice" && fromNetrc.password == "from-netrc")
        #expect(try read(["user": "bob"]).password == nil)
        #expect(try read(["netrc": "off"]).password == nil)
        #expect(try read(["password-env": "DAV_SECRET"]).password == "from-variable")
        #expect(try read(["password-env": "DAV_SECRET"], secrets: [WebDAVRemoteStore.SecretName.password: "from-secret"]).password == "from-secret")
    }

    @Test func invalidTypedConfigurationIsRefusedAndItsDescriptionHidesThePassword() {
        var configuration = WebDAVRemoteStore.Configuration(url: URL(string: "webdavs://dav.example.com/sync")!, user: "alice", password: "hunter2-secret")
        #expect("\(configuration)".contains("password=<redacted>") && !"\(configuration)".contains("hunter2"))
        configuration.connectionCount = 0
        #expect(throws: RemoteStoreError.self) { _ = try WebDAVRemoteStore(configuration: configuration) }
        configuration.connectionCount = 1
        configuration.url = URL(string: "ftp://dav.example.com/")!
        #expect(throws: RemoteStoreError.self) { _ = try WebDAVRemoteStore(configuration: configuration) }
    }

    @Test func settingsAreCheckedAndDescriptionsHideThePassword() throws {
        let url = URL(string: "webdavs://example.com/dav")!
        for settings in [["auth": "kerberos"], ["connect-timeout": "-1"], ["connections": "0"], ["unknown-key": "x"]] {
            #expect(throws: RemoteStoreError.self) {
                _ = try WebDAVRemoteStore(configuration: RemoteStoreConfiguration(url: url, settings: settings))
            }
        }
        #expect(throws: RemoteStoreError.self) {
            _ = try WebDAVRemoteStore(configuration: RemoteStoreConfiguration(url: URL(string: "ftp://example.com/")!))
        }
        let configuration = RemoteStoreConfiguration(url: url, secrets: ["password": "hunter2-secret"])
        #expect(!configuration.description.contains("hunter2-secret"))
    }

    @Test func tlsWithTheConfiguredCertificateAuthorityWorks() async throws {
        let store = try await WebDAVTestServer.apacheTLS.freshStore(settings: ["ca-file": try WebDAVTestServer.caFile()])
        try await store.write(Data("over TLS".utf8), to: "file")
        #expect(try await store.read("file") == Data("over TLS".utf8))
        await store.close()
    }

    @Test func untrustedCertificateIsRefused() async throws {
        let (user, password) = try WebDAVTestServer.credentials()
        let store = try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(
                url: try WebDAVTestServer.apacheTLS.rootURL(),
                settings: ["user": user, "retries": "1"],
                secrets: ["password": password]
            )
        )
        try await expectCode(.hostKeyUnknown) { _ = try await store.list(.root) }
        await store.close()
    }
}
