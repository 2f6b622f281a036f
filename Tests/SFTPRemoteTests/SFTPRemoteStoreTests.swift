import Foundation
import RemoteProtocol
import SFTPRemote
import Testing

@Suite("SFTPRemoteStore against the real sshd", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPRemoteStoreTests {
    @Test func basicOperationsWork() async throws {
        let server = try SFTPTestServer.current()
        let store = try await server.makeStore()
        defer { Task { await store.close() } }
        try await store.createDirectory(at: "a/b")
        try await store.write(Data("hello".utf8), to: "a/b/c.txt")
        #expect(try await store.read("a/b/c.txt") == Data("hello".utf8))
        try await store.write(Data("hi".utf8), to: "a/b/c.txt")
        #expect(try await store.read("a/b/c.txt") == Data("hi".utf8))
        let items = try await store.list("a/b")
        #expect(items.map(\.name) == ["c.txt"])
        #expect(items.first?.size == 2)
        try await store.delete("a")
        #expect(try await store.exists("a") == nil)
    }
}
