import Foundation
import RemoteProtocol
import Testing
import WebDAVRemote

/// Broken server answers must give `invalidResponse`, never a crash, a wrong listing or a
/// half-written local file. Each test runs its own ``FaultInjectingHTTPServer``.
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

    @Test func truncatedBodyGivesInvalidResponseAndNoLocalFile() async throws {
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
        await expectInvalidResponse { try await store.download("file.bin", to: local.url) }
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

    @Test func truncatedMultistatusGivesInvalidResponse() async throws {
        let server = try FaultInjectingHTTPServer { _, _ in
            let full = FaultInjectingHTTPServer.multistatus(files: ["/a.txt", "/b.txt"], size: 3)
            return full.prefix(full.count - 40)
        }
        defer { server.stop() }
        let store = try store(on: server)
        await expectInvalidResponse { _ = try await store.list(.root) }
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
}
