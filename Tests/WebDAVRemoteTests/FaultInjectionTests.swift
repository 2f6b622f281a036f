import Foundation
import RemoteProtocol
import Synchronization
import Testing
import WebDAVRemote

/// Broken server answers must give `invalidResponse`, never a crash, a wrong listing or a
/// half-written local file; a response cut short of its Content-Length is a connection that
/// dropped (`unavailable`, retryable). Each test runs its own ``FaultInjectingHTTPServer``.
struct FaultInjectionTests {
    private static let fileBody = Data((0..<1000).map { UInt8($0 % 251) })

    private func store(on server: FaultInjectingHTTPServer) throws -> WebDAVRemoteStore {
        try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(url: server.url, settings: ["retries": "1", "netrc": "off"])
        )
    }

    private func expectInvalidResponse(_ operation: () async throws -> Void) async {
        await #expect {
            try await operation()
        } throws: { error in
            (error as? RemoteStoreError)?.code == .invalidResponse
        }
    }

    @Test func malformedMultistatusGivesInvalidResponse() async throws {
        let server = try FaultInjectingHTTPServer { _, _ in
            let xml = #"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/a</D:href><D:propstat>"#
            return FaultInjectingHTTPServer.response(status: "207 Multi-Status", body: Data(xml.utf8))
        }
        defer { server.stop() }
        let store = try store(on: server)
        await expectInvalidResponse { _ = try await store.list(.root) }
        await expectInvalidResponse { _ = try await store.exists("a") }
    }

    @Test func htmlErrorPagesGiveInvalidResponse() async throws {
        let page = Data("<!DOCTYPE html><html><head><title>Welcome</title></head><body><p>Login</p></body></html>".utf8)
        let server = try FaultInjectingHTTPServer { method, _ in
            // A portal answering 200 to everything, and 207 with HTML for PROPFIND.
            method == "PROPFIND"
                ? FaultInjectingHTTPServer.response(status: "207 Multi-Status", headers: ["Content-Type: text/html"], body: page)
                : FaultInjectingHTTPServer.response(status: "200 OK", headers: ["Content-Type: text/html"], body: page)
        }
        defer { server.stop() }
        let store = try store(on: server)
        await expectInvalidResponse { _ = try await store.list(.root) }
        await expectInvalidResponse { try await store.createDirectory(at: "dir") }
    }

    @Test func listingWithForeignHrefIsRejectedNotReturned() async throws {
        let server = try FaultInjectingHTTPServer { _, _ in
            FaultInjectingHTTPServer.multistatus(files: ["/a.txt", "/elsewhere/b.txt"], size: 3)
        }
        defer { server.stop() }
        let store = try store(on: server)
        await expectInvalidResponse { _ = try await store.list(.root) }
    }

    /// The server closes the connection 100 bytes into a 1000-byte body: a dropped connection,
    /// not a malformed answer, so a retry may help.
    @Test func truncatedBodyIsADroppedConnectionAndLeavesNoLocalFile() async throws {
        let body = Self.fileBody
        let server = try FaultInjectingHTTPServer { method, _ in
            method == "PROPFIND"
                ? FaultInjectingHTTPServer.multistatus(files: ["/file.bin"], size: body.count)
                : FaultInjectingHTTPServer.response(status: "200 OK", body: body.prefix(100), contentLength: body.count)
        }
        defer { server.stop() }
        let store = try store(on: server)
        let local = try LocalScratchFile()
        defer { local.remove() }
        await #expect {
            try await store.download("file.bin", to: local.url)
        } throws: { error in
            guard let error = error as? RemoteStoreError else { return false }
            return error.code == .unavailable && error.isRetryable
        }
        #expect(!FileManager.default.fileExists(atPath: local.url.path))
    }

    @Test func contentLengthShorterThanTheFileGivesInvalidResponse() async throws {
        let body = Self.fileBody
        let server = try FaultInjectingHTTPServer { method, _ in
            method == "PROPFIND"
                ? FaultInjectingHTTPServer.multistatus(files: ["/file.bin"], size: body.count)
                : FaultInjectingHTTPServer.response(status: "200 OK", headers: ["ETag: \"v1\""], body: body, contentLength: 10)
        }
        defer { server.stop() }
        let store = try store(on: server)
        let local = try LocalScratchFile()
        defer { local.remove() }
        let previous = Data("previous content".utf8)
        try previous.write(to: local.url)
        await expectInvalidResponse { try await store.download("file.bin", to: local.url) }
        #expect(try Data(contentsOf: local.url) == previous)
    }

    /// A complete response whose XML stops in the middle is malformed.
    @Test func truncatedMultistatusGivesInvalidResponse() async throws {
        let server = try FaultInjectingHTTPServer { _, _ in
            let full = FaultInjectingHTTPServer.multistatus(files: ["/a.txt", "/b.txt"], size: 3)
            let body = full[full.range(of: Data("\r\n\r\n".utf8))!.upperBound...]
            return FaultInjectingHTTPServer.response(status: "207 Multi-Status", body: Data(body.dropLast(40)))
        }
        defer { server.stop() }
        let store = try store(on: server)
        await expectInvalidResponse { _ = try await store.list(.root) }
    }

    /// A multistatus cut short of its Content-Length is a connection that dropped.
    @Test func multistatusCutShortIsADroppedConnection() async throws {
        let server = try FaultInjectingHTTPServer { _, _ in
            let full = FaultInjectingHTTPServer.multistatus(files: ["/a.txt", "/b.txt"], size: 3)
            return full.prefix(full.count - 40)
        }
        defer { server.stop() }
        let store = try store(on: server)
        await #expect {
            _ = try await store.list(.root)
        } throws: { error in
            (error as? RemoteStoreError)?.code == .unavailable
        }
    }

    @Test func serverErrorPageMapsToUnavailable() async throws {
        let server = try FaultInjectingHTTPServer { _, _ in
            FaultInjectingHTTPServer.response(
                status: "503 Service Unavailable",
                headers: ["Content-Type: text/html"],
                body: Data("<html><body><h1>Maintenance</h1></body></html>".utf8)
            )
        }
        defer { server.stop() }
        let store = try store(on: server)
        await #expect {
            _ = try await store.list(.root)
        } throws: { error in
            guard let error = error as? RemoteStoreError else { return false }
            return error.code == .unavailable && error.isRetryable && error.message.contains("Maintenance")
        }
    }

    @Test func redirectsKeepTheMethodAndStayOnTheServer() async throws {
        let methods = Mutex<[String]>([])
        let server = try FaultInjectingHTTPServer { method, path in
            methods.withLock { $0.append("\(method) \(path)") }
            switch path {
            case "/":
                return FaultInjectingHTTPServer.response(status: "301 Moved Permanently", headers: ["Location: /moved/"], body: Data())
            case "/moved/":
                return FaultInjectingHTTPServer.multistatus(files: [], size: 0)
            default:
                return FaultInjectingHTTPServer.response(
                    status: "307 Temporary Redirect", headers: ["Location: http://192.0.2.1/elsewhere"], body: Data()
                )
            }
        }
        defer { server.stop() }
        let store = try store(on: server)
        // The redirected listing is requested again with PROPFIND (not GET) at the new location.
        #expect(try await store.list(.root).isEmpty)
        #expect(methods.withLock { $0.prefix(2) } == ["PROPFIND /", "PROPFIND /moved/"])
        await expectInvalidResponse { _ = try await store.exists("away") }
        #expect(methods.withLock { $0.last } == "PROPFIND /away")
    }

    @Test func retryableStatusesAreRetried() async throws {
        let requests = Mutex(0)
        let server = try FaultInjectingHTTPServer { _, _ in
            let count = requests.withLock { count in
                count += 1
                return count
            }
            return count < 3
                ? FaultInjectingHTTPServer.response(status: "503 Service Unavailable", body: Data())
                : FaultInjectingHTTPServer.multistatus(files: ["/a.txt"], size: 3)
        }
        defer { server.stop() }
        let store = try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(url: server.url, settings: ["retries": "3", "netrc": "off"])
        )
        #expect(try await store.list(.root).map(\.name) == ["a.txt"])
        #expect(requests.withLock { $0 } == 3)
        #expect(store.requestCount == 3)
    }

    // MARK: - A file replaced while it is read

    /// The Depth 0 answer describing `/a.bin` as a file of `size` bytes with `etag`.
    private static func fileProperties(size: Int, etag: String) -> Data {
        var xml = #"<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:">"#
        xml += "<D:response><D:href>/a.bin</D:href><D:propstat><D:prop><D:resourcetype/>"
        xml += "<D:getcontentlength>\(size)</D:getcontentlength><D:getetag>\(etag)</D:getetag>"
        xml += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>"
        return FaultInjectingHTTPServer.response(status: "207 Multi-Status", headers: ["Content-Type: application/xml"], body: Data(xml.utf8))
    }

    /// A server whose GETs of `/a.bin` answer `firstGets` in turn, then `laterGet`, and whose
    /// PROPFINDs describe the 8-byte file "eight!!!" with ETag "n".
    private func replacingServer(firstGets: [Data], laterGet: Data) throws -> FaultInjectingHTTPServer {
        let gets = Mutex(0)
        return try FaultInjectingHTTPServer { method, _ in
            guard method == "GET" else { return Self.fileProperties(size: 8, etag: #""n""#) }
            let index = gets.withLock { count in
                defer { count += 1 }
                return count
            }
            return index < firstGets.count ? firstGets[index] : laterGet
        }
    }

    private static let forbidden = FaultInjectingHTTPServer.response(status: "403 Forbidden", body: Data())
    private static let newFile = FaultInjectingHTTPServer.response(status: "200 OK", headers: [#"ETag: "n""#], body: Data("eight!!!".utf8))
    /// wsgidav's answer when a MOVE replaced the file during its GET: the old file's length, the
    /// new file's ETag and bytes.
    private static let oldLengthNewTag = FaultInjectingHTTPServer.response(status: "200 OK", headers: [#"ETag: "n""#], body: Data("eigh".utf8))

    /// Apache answers 403 when the file it found is deleted before it opens it (the first step of
    /// a replacing MOVE): with a file standing there afterwards, the read is made again.
    @Test func aGetRefusedWhileTheFileIsReplacedIsMadeAgain() async throws {
        let server = try replacingServer(firstGets: [Self.forbidden], laterGet: Self.newFile)
        defer { server.stop() }
        #expect(try await store(on: server).read("a.bin") == Data("eight!!!".utf8))
    }

    @Test func aFileThatIsAlwaysRefusedIsPermissionDenied() async throws {
        let server = try replacingServer(firstGets: [], laterGet: Self.forbidden)
        defer { server.stop() }
        await #expect {
            _ = try await store(on: server).read("a.bin")
        } throws: { error in
            (error as? RemoteStoreError)?.code == .permissionDenied
        }
    }

    /// wsgidav takes a GET's length and ETag from two `stat`s: a MOVE in between gives the new
    /// file's ETag with the old file's length; the read is made again.
    @Test func aLengthThatDisagreesWithItsETagOnceIsReadAgain() async throws {
        let server = try replacingServer(firstGets: [Self.oldLengthNewTag], laterGet: Self.newFile)
        defer { server.stop() }
        #expect(try await store(on: server).read("a.bin") == Data("eight!!!".utf8))
    }

    @Test func aLengthThatAlwaysDisagreesWithItsETagIsInvalidResponse() async throws {
        let server = try replacingServer(firstGets: [], laterGet: Self.oldLengthNewTag)
        defer { server.stop() }
        await expectInvalidResponse { _ = try await store(on: server).read("a.bin") }
    }
}
