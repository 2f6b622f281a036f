import Foundation
import RemoteProtocol
import S3Remote
import Testing
import TestSupport

/// Connections to the S3 server dropped in the middle of an upload and of a listing, by a proxy
/// in front of moto: the store retries (the signature covers the proxy's host and port, which
/// moto sees as the request's host) and the call succeeds, or, with retries off, fails with a
/// retryable `unavailable` and leaves nothing half-done.
@Suite(.enabled(if: S3TestServer.enabled))
struct S3DroppedConnectionTests {
    /// A store on `prefix` that connects through `proxy`, with one connection and `retries` attempts.
    private func store(through proxy: FaultyTCPProxy, prefix: String, retries: Int) throws -> S3RemoteStore {
        let configuration = try S3TestServer.moto.configuration(
            prefix: prefix,
            settings: ["endpoint": "http://127.0.0.1:\(proxy.port)", "connections": "1", "retries": "\(retries)"]
        )
        return try S3RemoteStore(configuration: configuration, environment: [:])
    }

    private func upstreamPort() throws -> Int {
        try #require(URL(string: try S3TestServer.variable("ROLLSYNC_TEST_S3_ENDPOINT"))?.port)
    }

    @Test("a connection dropped mid-upload is retried and the file arrives whole; without retries the error is retryable and no file appears")
    func droppedMidUpload() async throws {
        let proxy = try FaultyTCPProxy(forwardingTo: try upstreamPort())
        defer { proxy.stop() }
        let prefix = "drop-\(UUID().uuidString)"
        let scratch = try TemporaryDirectory(prefix: "s3-drop")
        defer { scratch.remove() }
        let file = scratch.appending("file.bin")
        try LargeFile.write(file, bytes: 3 << 20, seed: 21)

        // Every connection cut after 1 MiB (libcurl itself sends a request again once on a fresh
        // connection when a reused one dies, so one cut connection alone may go unnoticed).
        let failing = try store(through: proxy, prefix: prefix, retries: 1)
        proxy.inject(.cut(.clientBytes(1 << 20), reset: true))
        let error = await #expect(throws: RemoteStoreError.self) { try await failing.upload(contentsOf: file, to: "file.bin") }
        #expect(error?.code == .unavailable && error?.isRetryable == true, "\(String(describing: error))")
        await failing.close()
        proxy.heal()

        let retrying = try store(through: proxy, prefix: prefix, retries: 3)
        #expect(try await retrying.exists("file.bin") == nil, "the cut upload left no object")
        proxy.inject(.cut(.clientBytes(1 << 20), reset: true), connections: 1)
        try await retrying.upload(contentsOf: file, to: "file.bin")
        let copy = scratch.appending("copy.bin")
        try await retrying.download("file.bin", to: copy)
        #expect(try LargeFile.identical(file, copy))
        try await retrying.delete("file.bin")
        await retrying.close()
    }

    @Test("a connection dropped in the middle of a listing page is retried and the listing is complete")
    func droppedMidList() async throws {
        let prefix = "drop-\(UUID().uuidString)"
        let direct = try S3RemoteStore(configuration: try S3TestServer.moto.configuration(prefix: prefix), environment: [:])
        // 400 entries: a listing answer of about 100 kB, cut after 20 kB.
        let names = (0..<400).map { "entry-\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, name) in names.enumerated() {
                if index >= 8 { try await group.next() }
                group.addTask { try await direct.write(Data(), to: try RemotePath(name)) }
            }
            try await group.waitForAll()
        }
        // Made once the files are written: its lifetime bounds the listing only.
        let proxy = try FaultyTCPProxy(forwardingTo: try upstreamPort())
        defer { proxy.stop() }

        let failing = try store(through: proxy, prefix: prefix, retries: 1)
        proxy.inject(.cut(.serverBytes(20_000), reset: false))
        let error = await #expect(throws: RemoteStoreError.self) { _ = try await failing.list(.root) }
        #expect(error?.isRetryable == true, "\(String(describing: error))")
        await failing.close()
        proxy.heal()

        let retrying = try store(through: proxy, prefix: prefix, retries: 3)
        proxy.inject(.cut(.serverBytes(20_000), reset: false), connections: 1)
        let items = try await retrying.list(.root)
        #expect(Set(items.map(\.name)) == Set(names))
        await retrying.close()

        for name in names { try await direct.delete(try RemotePath(name)) }
        await direct.close()
    }
}
