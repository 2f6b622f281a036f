import Foundation
import RemoteProtocol
import TestSupport
import Testing
import WebDAVRemote

/// WebDAV-specific behaviour against the real Apache, wsgidav, nginx and lighttpd test servers (the
/// contract itself is covered by the conformance suite).
@Suite(.enabled(if: WebDAVTestServer.enabled))
struct WebDAVRemoteStoreTests {
    private let hostileNames = ["sp ace 世界 ?#&+%.txt", "'quoted\" name", ".leading-dot", "a@b,c;d=e", String(repeating: "é", count: 100)]

    /// A process the application starts must not inherit libcurl's connections: a copy would keep
    /// a connection open after libcurl closed it (libcurl opens its sockets without close-on-exec;
    /// the transport opens them itself).
    @Test func connectionsAreClosedOnExec() async throws {
        let store = try await WebDAVTestServer.apache.freshStore()
        _ = try await store.list(.root)
        let port = try #require(try WebDAVTestServer.apache.rootURL().port)
        let sockets = OpenDescriptors.sockets(connectedToPort: port)
        #expect(!sockets.isEmpty)
        #expect(sockets.allSatisfy { $0.closeOnExec }, "inheritable: \(sockets.filter { !$0.closeOnExec }.map(\.descriptor))")
        await store.close()
    }

    @Test(arguments: WebDAVTestServer.tested)
    func hostileNamesRoundTripAndListExactly(_ server: WebDAVTestServer) async throws {
        let store = try await server.freshStore()
        try await store.createDirectory(at: "dir with space/ünïcödé")
        for (index, name) in hostileNames.enumerated() {
            try await store.write(Data("content \(index)".utf8), to: RemotePath("dir with space/ünïcödé").appending(name))
        }
        let listed = try await store.list("dir with space/ünïcödé")
        let listable = hostileNames.filter { !(server.hidesLeadingDotNamesInListings && $0.hasPrefix(".")) }
        #expect(Set(listed.map(\.name)) == Set(listable.map(\.precomposedStringWithCanonicalMapping)))
        for (index, name) in hostileNames.enumerated() {
            let path = try RemotePath("dir with space/ünïcödé").appending(name)
            #expect(try await store.read(path) == Data("content \(index)".utf8))
            #expect(try await store.exists(path)?.size == Int64("content \(index)".utf8.count))
        }
        #expect(try await store.list("dir with space").map(\.kind) == [.directory])
        await store.close()
    }

    @Test(arguments: WebDAVTestServer.tested)
    func uploadLeavesNoTemporaryFileAndReplacesWhole(_ server: WebDAVTestServer) async throws {
        let store = try await server.freshStore()
        try await store.write(Data(repeating: 7, count: 100_000), to: "file")
        try await store.write(Data("short".utf8), to: "file")
        #expect(try await store.read("file") == Data("short".utf8))
        #expect(try await store.list(.root).map(\.name) == ["file"])
        await store.close()
    }

    @Test(arguments: WebDAVTestServer.tested)
    func statusVariantsMapToContractErrors(_ server: WebDAVTestServer) async throws {
        let store = try await server.freshStore()
        try await store.write(Data("x".utf8), to: "file")
        try await store.createDirectory(at: "dir")
        try await expectCode(.notADirectory) { try await store.createDirectory(at: "file/below/deeper") }
        try await expectCode(.alreadyExists) { try await store.createDirectory(at: "file") }
        try await expectCode(.notFound) { try await store.write(Data(), to: "missing/file") }
        try await expectCode(.notADirectory) { try await store.write(Data(), to: "file/child") }
        try await expectCode(.isADirectory) { try await store.write(Data(), to: "dir") }
        try await expectCode(.notADirectory) { _ = try await store.list("file") }
        try await expectCode(.notFound) { _ = try await store.list("missing") }
        try await expectCode(.isADirectory) { _ = try await store.read("dir") }
        try await expectCode(.notFound) { _ = try await store.read("missing") }
        try await expectCode(.notFound) { try await store.copy("missing", to: "copy") }
        try await expectCode(.notFound) { try await store.copy("file", to: "missing/copy") }
        #expect(try await store.exists("file/child") == nil)
        #expect(try await store.exists("file/child/deeper") == nil)
        // lighttpd answers a GET below a file with the file's bytes (path info); the PROPFIND
        // that confirms every download finds nothing there.
        try await expectCode(.notFound) { _ = try await store.read("file/child") }
        try await expectCode(.notFound) { _ = try await store.list("file/child") }
        try await store.delete("file/child/deeper")
        try await store.delete("missing")
        try await store.delete("dir")
        #expect(try await store.exists("dir") == nil)
        await store.close()
    }

    /// nginx answers 500 for a PUT into a missing directory; the body still travels once, and
    /// the upload costs four requests on every server (PROPFIND of the target, PUT, PROPFIND of
    /// the parent, DELETE of the temporary name).
    @Test(arguments: WebDAVTestServer.tested)
    func uploadIntoAMissingDirectorySendsTheBodyOnce(_ server: WebDAVTestServer) async throws {
        let store = try await server.freshStore()
        let before = store.requestCount
        try await expectCode(.notFound) { try await store.write(Data(count: 200_000), to: "missing/file") }
        #expect(store.requestCount - before == 4)
        try await expectCode(.notFound) { try await store.copy("missing-source", to: "missing/copy") }
        try await store.write(Data("x".utf8), to: "source")
        try await expectCode(.notFound) { try await store.copy("source", to: "missing/copy") }
        #expect(try await store.exists("missing") == nil)
        await store.close()
    }

    @Test(arguments: WebDAVTestServer.tested)
    func immutableDownloadIsOneRequestAndReportsIt(_ server: WebDAVTestServer) async throws {
        let store = try await server.freshStore()
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await store.write(content, to: "set")
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("immutable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: local) }

        let before = store.requestCount
        // A retry after a transient failure (a loaded server) adds requests, reported as retried.
        let (outcome, reported, retried) = await RemoteRequestCounter.measure { try await store.downloadImmutableFile("set", to: local) }
        try outcome.get()
        #expect(store.requestCount - before == reported)
        #expect(reported.map { $0 - retried } == 1)
        #expect(try Data(contentsOf: local) == content)

        let (plain, plainReported, plainRetried) = await RemoteRequestCounter.measure { try await store.download("set", to: local) }
        try plain.get()
        #expect(plainReported.map { $0 - plainRetried } == 2, "GET, then PROPFIND to confirm the version")

        try await expectCode(.notFound) { try await store.downloadImmutableFile("missing", to: local) }
        #expect(try Data(contentsOf: local) == content, "a failed download leaves the local file as it was")
        await store.close()
    }

    @Test(arguments: WebDAVTestServer.tested)
    func copyRunsOnTheServerAndOverwrites(_ server: WebDAVTestServer) async throws {
        let store = try await server.freshStore()
        #expect(store.capabilities.serverSideCopy)
        try await store.write(Data("one".utf8), to: "a")
        try await store.write(Data("two, longer".utf8), to: "b")
        try await store.copy("a", to: "b")
        #expect(try await store.read("b") == Data("one".utf8))
        try await store.copy("a", to: "a")
        #expect(try await store.read("a") == Data("one".utf8))
        #expect(Set(try await store.list(.root).map(\.name)) == ["a", "b"])
        await store.close()
    }

    @Test func downloadIntoMissingLocalDirectoryThrowsLocalFile() async throws {
        let store = try await WebDAVTestServer.apache.freshStore()
        try await store.write(Data("x".utf8), to: "file")
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID())/file")
        try await expectCode(.localFile) { try await store.download("file", to: missing) }
        await store.close()
    }

    @Test func concurrentCallsShareThePool() async throws {
        let store = try await WebDAVTestServer.apache.freshStore(settings: ["connections": "2"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask { try await store.write(Data("\(index)".utf8), to: RemotePath("f\(index)")) }
            }
            try await group.waitForAll()
        }
        #expect(try await store.list(.root).count == 12)
        await store.close()
    }

    @Test func registryOpensWebDAVSchemes() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(WebDAVRemoteStore.self)
        #expect(registry.schemes == ["webdav", "webdavs"])
        let configuration = try await WebDAVTestServer.apache.freshConfiguration()
        let store = try await registry.makeStore(for: configuration)
        #expect(try await store.list(.root).isEmpty)
        await store.close()
    }
}

/// Runs `operation` and expects a ``RemoteStoreError`` with `code`.
func expectCode(
    _ code: RemoteStoreError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws -> Void
) async throws {
    do {
        try await operation()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as RemoteStoreError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}
