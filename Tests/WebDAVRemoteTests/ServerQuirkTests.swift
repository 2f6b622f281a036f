import Foundation
import RemoteProtocol
import Synchronization
import Testing
import WebDAVRemote

/// Answers of real servers that the four test servers do not all give, replayed by a
/// ``FaultInjectingHTTPServer``: each must end in the contract's error code, after looking at what
/// stands on the server, and never by sending a body again blindly.
struct ServerQuirkTests {
    private static let notFound = FaultInjectingHTTPServer.response(status: "404 Not Found", body: Data())

    private func store(on server: FaultInjectingHTTPServer, retries: Int) throws -> WebDAVRemoteStore {
        try WebDAVRemoteStore(
            configuration: RemoteStoreConfiguration(url: server.url, settings: ["retries": "\(retries)", "netrc": "off"])
        )
    }

    /// A 207 describing one resource at `href`, a collection or a file of three bytes.
    private static func propertiesOf(_ href: String, collection: Bool) -> Data {
        let type = collection ? "<D:collection/>" : ""
        let xml = #"<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:"><D:response>"#
            + "<D:href>\(href)</D:href><D:propstat><D:prop><D:resourcetype>\(type)</D:resourcetype>"
            + (collection ? "" : "<D:getcontentlength>3</D:getcontentlength>")
            + "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>"
        return FaultInjectingHTTPServer.response(status: "207 Multi-Status", body: Data(xml.utf8))
    }

    /// A server that answers 500 to every PUT (calling `onPut` first), with `/` a collection and
    /// nothing else.
    private static func serverErrorOnEveryPut(onPut: @escaping @Sendable () -> Void) throws -> FaultInjectingHTTPServer {
        try FaultInjectingHTTPServer { method, path in
            switch (method, path) {
            case ("PUT", _):
                onPut()
                return FaultInjectingHTTPServer.response(status: "500 Internal Server Error", body: Data("<h1>500</h1>".utf8))
            case ("PROPFIND", "/"):
                return Self.propertiesOf("/", collection: true)
            default:
                return Self.notFound
            }
        }
    }

    /// nginx answers 500 to a PUT into a missing directory. The parent is examined after the first
    /// 500: `notFound`, with the body sent once (it used to be sent four times, then `unavailable`).
    @Test func serverErrorForAMissingParentSendsTheBodyOnce() async throws {
        let puts = Mutex(0)
        let server = try Self.serverErrorOnEveryPut { puts.withLock { $0 += 1 } }
        defer { server.stop() }
        let store = try store(on: server, retries: 4)
        try await expectCode(.notFound) { try await store.write(Data(count: 100_000), to: "missing/file") }
        #expect(puts.withLock { $0 } == 1)
        // PROPFIND of the target, the PUT, PROPFIND of the parent, DELETE of the temporary name.
        #expect(store.requestCount == 4)
    }

    /// A 500 with the parent in place is a server failure: retried under the policy, then `unavailable`.
    @Test func serverErrorWithTheParentInPlaceIsRetried() async throws {
        let puts = Mutex(0)
        let server = try Self.serverErrorOnEveryPut { puts.withLock { $0 += 1 } }
        defer { server.stop() }
        let store = try store(on: server, retries: 3)
        try await expectCode(.unavailable) { try await store.write(Data(count: 1000), to: "file") }
        #expect(puts.withLock { $0 } == 3)
    }

    /// A server that answers 405 to MKCOL below a file (as if something existed there) gives
    /// `notADirectory`, like the 409 of the standard, not `notFound`.
    @Test func mkcol405BelowAFileIsNotADirectory() async throws {
        let server = try FaultInjectingHTTPServer { method, path in
            switch (method, path) {
            case ("MKCOL", _):
                return FaultInjectingHTTPServer.response(status: "405 Method Not Allowed", body: Data())
            case ("PROPFIND", "/file"):
                return Self.propertiesOf("/file", collection: false)
            default:
                return Self.notFound
            }
        }
        defer { server.stop() }
        let store = try store(on: server, retries: 1)
        try await expectCode(.notADirectory) { try await store.createDirectory(at: "file/sub") }
        try await expectCode(.alreadyExists) { try await store.createDirectory(at: "file") }
    }

    /// A complete 207 whose body is garbage (a server writing an error page after the status line)
    /// is asked again; the second, good answer is returned.
    @Test func garbledMultistatusIsAskedAgain() async throws {
        let requests = Mutex(0)
        let server = try FaultInjectingHTTPServer { _, _ in
            let count = requests.withLock { count in
                count += 1
                return count
            }
            return count == 1
                ? FaultInjectingHTTPServer.response(status: "207 Multi-Status", body: Data("<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:respo\u{0}garbage".utf8))
                : FaultInjectingHTTPServer.multistatus(files: ["/a.txt"], size: 3)
        }
        defer { server.stop() }
        let store = try store(on: server, retries: 2)
        #expect(try await store.list(.root).map(\.name) == ["a.txt"])
        #expect(requests.withLock { $0 } == 2)
    }

    /// nginx and lighttpd redirect a GET of a collection to its slash form and then refuse it; the
    /// PROPFIND that follows recognises the collection.
    @Test func collectionRedirectedThenRefusedIsADirectory() async throws {
        let server = try FaultInjectingHTTPServer { method, path in
            switch (method, path) {
            case ("GET", "/dir"):
                return FaultInjectingHTTPServer.response(status: "301 Moved Permanently", headers: ["Location: /dir/"], body: Data())
            case ("GET", "/dir/"):
                return FaultInjectingHTTPServer.response(status: "405 Not Allowed", body: Data())
            case ("PROPFIND", "/dir"):
                return Self.propertiesOf("/dir/", collection: true)
            default:
                return Self.notFound
            }
        }
        defer { server.stop() }
        let store = try store(on: server, retries: 1)
        try await expectCode(.isADirectory) { _ = try await store.read("dir") }
    }
}
