import Foundation
import RemoteProtocol
@testable import S3Remote
import Testing
import TestSupport

/// The S3 backend against moto and Ceph RGW: what the contract suite does not say — paging,
/// batched deletes, multipart uploads and copies, aborts, credentials and their redaction, and the
/// AWS CLI reading what RollingSync wrote and the other way round. The tests that need moto's
/// fault injection run on a private moto.
@Suite
struct S3RemoteStoreTests {
    /// With 100 keys a request instead of S3's 1,000 (the paging is the same, at a tenth of the
    /// uploads).
    @Test("a directory of 250 objects lists whole (three ListObjectsV2 pages of 100) and deletes in three DeleteObjects batches", arguments: S3TestServer.available())
    func paginationOf250Objects(server: S3TestServer) async throws {
        var configuration = try S3RemoteStore.Configuration(server.configuration(prefix: "test-\(UUID().uuidString)", settings: ["connections": "16"]))
        configuration.keysPerRequest = 100
        let store = try S3RemoteStore(configuration: configuration, environment: [:])
        let directory: RemotePath = "many"
        try await store.createDirectory(at: directory)
        let names = (0..<250).map { String(format: "object-%03d", $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, name) in names.enumerated() {
                if index >= 16 { try await group.next() }
                group.addTask { try await store.write(Data(name.utf8), to: directory / name) }
            }
            try await group.waitForAll()
        }
        let before = store.requestCount
        let items = try await store.list(directory)
        #expect(store.requestCount - before == 3, "250 keys are three pages of 100")
        #expect(Set(items.map(\.name)) == Set(names))
        #expect(items.count == names.count)
        #expect(items.allSatisfy { $0.size == Int64($0.name.utf8.count) }, "each object holds its name")

        let beforeDelete = store.requestCount
        try await store.delete(directory)
        // One DeleteObject, three list pages, three DeleteObjects of at most 100 keys.
        #expect(store.requestCount - beforeDelete == 7)
        #expect(try await store.exists(directory) == nil)
        await store.close()
    }

    /// A store on the shared server's `prefix` that uploads files above `threshold` in 5 MiB parts,
    /// with `settings` added to the test user's.
    private func multipartStore(
        on server: S3TestServer, prefix: String, threshold: Int64, partConcurrency: Int = 4, settings: [String: String] = [:]
    ) throws -> S3RemoteStore {
        var configuration = try S3RemoteStore.Configuration(server.configuration(prefix: prefix, settings: settings))
        configuration.multipartThreshold = threshold
        configuration.partSize = 5 << 20
        configuration.partConcurrency = partConcurrency
        return try S3RemoteStore(configuration: configuration, environment: [:])
    }

    @Test("a file above the multipart threshold uploads in parts (bounded parts, then complete)", arguments: S3TestServer.available())
    func multipartUpload(server: S3TestServer) async throws {
        let prefix = "test-\(UUID().uuidString)"
        let store = try multipartStore(on: server, prefix: prefix, threshold: 6 << 20)
        let scratch = try TemporaryDirectory(prefix: "s3-test")
        defer { scratch.remove() }
        let source = scratch.appending("source.bin")
        try LargeFile.write(source, bytes: 12 << 20 + 7, seed: 3)
        let before = store.requestCount
        try await store.upload(contentsOf: source, to: "big.bin")
        // The directory check (no parent check at the root), create, three parts, complete.
        #expect(store.requestCount - before == 6)
        let copy = scratch.appending("copy.bin")
        try await store.download("big.bin", to: copy)
        #expect(try LargeFile.identical(source, copy))
        #expect(try await server.pendingMultipartUploads(prefix: prefix).isEmpty)
        await store.close()
    }

    /// S3 answers a conditional PUT that meets another in flight `409 ConditionalRequestConflict`
    /// (`rateLimited`, retried). A loser that met only conflicts used to give up with
    /// `rateLimited` although the winner's file was there; it must be told `alreadyExists`.
    @Test("a creator answered only with conflicts learns that the file exists (alreadyExists, not rateLimited)", .enabled(if: S3TestServer.enabled))
    func conflictAnswersEndInAlreadyExists() async throws {
        let server = try await PrivateMotoServer()
        let store = try server.store()
        try await store.createExclusively(Data("winner".utf8), at: "format.json")
        await #expect {
            try await store.createExclusively(Data("loser".utf8), at: "format.json")
        } throws: { error in
            (error as? RemoteStoreError)?.code == .alreadyExists
        }
        #expect(try await store.read("format.json") == Data("winner".utf8))
        await store.close()
        await server.stop()
    }

    @Test("a copy above the copy threshold copies in parts with UploadPartCopy", arguments: S3TestServer.available())
    func multipartCopy(server: S3TestServer) async throws {
        var configuration = try S3RemoteStore.Configuration(server.configuration(prefix: "test-\(UUID().uuidString)"))
        configuration.partSize = 5 << 20
        configuration.copyThreshold = 6 << 20
        let store = try S3RemoteStore(configuration: configuration, environment: [:])
        let scratch = try TemporaryDirectory(prefix: "s3-test")
        defer { scratch.remove() }
        let source = scratch.appending("source.bin")
        try LargeFile.write(source, bytes: 12 << 20 + 7, seed: 4)
        try await store.upload(contentsOf: source, to: "big.bin")
        let before = store.requestCount
        try await store.copy("big.bin", to: "copy.bin")
        // HEAD of the source, the destination checks (one at the root), create, three part copies, complete.
        #expect(store.requestCount - before == 7)
        let copy = scratch.appending("copy.bin")
        try await store.download("copy.bin", to: copy)
        #expect(try LargeFile.identical(source, copy))
        await store.close()
    }

    @Test("a cancelled multipart upload is aborted: no parts are left, the previous file stays", arguments: S3TestServer.available())
    func cancelledMultipartUploadIsAborted(server: S3TestServer) async throws {
        // The upload goes through a proxy that stalls the first connection to carry 3 MiB: the
        // first part's, whether the server keeps connections alive (RGW) or closes each after its
        // answer (moto). So the upload is cancelled while its multipart upload is certainly open,
        // however fast the server; the abort then goes out on a fresh connection, forwarded.
        let proxy = try FaultyTCPProxy(forwardingTo: try #require(URL(string: try server.endpoint())?.port))
        defer { proxy.stop() }
        let prefix = "test-\(UUID().uuidString)"
        let store = try multipartStore(
            on: server, prefix: prefix, threshold: 5 << 20, partConcurrency: 1,
            settings: ["endpoint": "http://127.0.0.1:\(proxy.port)", "connections": "1"]
        )
        let scratch = try TemporaryDirectory(prefix: "s3-test")
        defer { scratch.remove() }
        let source = scratch.appending("source.bin")
        try LargeFile.write(source, bytes: 40 << 20, seed: 5)
        proxy.inject(.stall(.clientBytes(3 << 20)), strikes: 1)
        try await store.write(Data("previous".utf8), to: "target")
        let upload = Task { try await store.upload(contentsOf: source, to: "target") }
        try await waitUntil("the multipart upload is open") { try await !server.pendingMultipartUploads(prefix: prefix).isEmpty }
        upload.cancel()
        let result = await upload.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await server.pendingMultipartUploads(prefix: prefix).isEmpty, "the upload was aborted")
        #expect(try await store.read("target") == Data("previous".utf8))
        await store.close()
    }

    @Test("wrong keys are a typed authentication error with S3's code; the secret is in no message", arguments: S3TestServer.available())
    func wrongSecretIsAuthenticationFailure(server: S3TestServer) async throws {
        let secret = "wrong-secret-0123456789/abcdefABCDEF+xyz"
        let store = try S3RemoteStore(configuration: server.configuration(secret: secret), environment: [:])
        let error = await #expect(throws: RemoteStoreError.self) { try await store.list(.root) }
        #expect(error?.code == .authenticationFailed)
        #expect((error?.underlying as? S3ServiceError)?.code == "SignatureDoesNotMatch")
        let text = "\(String(describing: error)) \(String(reflecting: error)) \(store.configuration)"
        #expect(!text.contains(secret))
        let unknownKey = try S3RemoteStore(
            configuration: server.configuration(settings: ["access-key-id": "AKIAUNKNOWN000000000"]), environment: [:]
        )
        let unknown = await #expect(throws: RemoteStoreError.self) { try await unknownKey.exists("anything") }
        #expect(unknown?.code == .authenticationFailed || unknown?.code == .permissionDenied, "HEAD answers without a body")
        let listed = await #expect(throws: RemoteStoreError.self) { try await unknownKey.list(.root) }
        #expect(listed?.code == .authenticationFailed)
        #expect((listed?.underlying as? S3ServiceError)?.code == "InvalidAccessKeyId")
    }

    @Test("a missing bucket is a clear not-found of the root", arguments: S3TestServer.available())
    func missingBucketIsNotFoundOfTheRoot(server: S3TestServer) async throws {
        var url = try #require(URLComponents(url: try server.url(), resolvingAgainstBaseURL: false))
        url.host = "no-such-bucket-\(UInt32.random(in: 0 ... .max))"
        let configuration = try server.configuration()
        let store = try S3RemoteStore(
            configuration: RemoteStoreConfiguration(url: try #require(url.url), settings: configuration.settings, secrets: configuration.secrets),
            environment: [:]
        )
        let error = await #expect(throws: RemoteStoreError.self) { try await store.list(.root) }
        #expect(error?.code == .notFound)
        #expect(error?.path == .root)
        #expect(error?.message.contains("does not exist") == true && error?.message.contains(url.host ?? "") == true)
    }

    @Test("the AWS CLI lists and downloads what RollingSync uploaded, hostile names included, and RollingSync reads what the AWS CLI uploaded", arguments: S3TestServer.available())
    func crossCheckWithTheAWSCLI(server: S3TestServer) async throws {
        let prefix = "cross-\(UUID().uuidString)"
        let store = try S3RemoteStore(configuration: server.configuration(prefix: prefix), environment: [:])
        let names = ["plain.txt", "with space & plus+.txt", "quest?ion #hash %percent.txt", "ünïcødé 日本語 🎉.txt", ".leading-dot", "quote ' \" semi;colon=eq"]
        for (index, name) in names.enumerated() {
            try await store.write(Data("content \(index)".utf8), to: try RemotePath("dir/\(name)"))
        }
        let listing = try await server.awsCLI(["s3api", "list-objects-v2", "--bucket", server.bucket(), "--prefix", "\(prefix)/dir/", "--query", "Contents[].Key", "--output", "json"])
        let keys = try #require(JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [String])
        #expect(Set(keys) == Set(names.map { "\(prefix)/dir/\($0)" }))

        let scratch = try TemporaryDirectory(prefix: "s3-cli")
        defer { scratch.remove() }
        for (index, name) in names.enumerated() {
            let local = scratch.appending("download-\(index)")
            _ = try await server.awsCLI(["s3api", "get-object", "--bucket", server.bucket(), "--key", "\(prefix)/dir/\(name)", local.path])
            #expect(try Data(contentsOf: local) == Data("content \(index)".utf8), "\(name)")
        }

        for (index, name) in names.enumerated() {
            let local = scratch.appending("upload-\(index)")
            try Data("from the cli \(index)".utf8).write(to: local)
            _ = try await server.awsCLI(["s3api", "put-object", "--bucket", server.bucket(), "--key", "\(prefix)/cli/\(name)", "--body", local.path])
        }
        let items = try await store.list("cli")
        #expect(Set(items.map(\.name)) == Set(names))
        for (index, name) in names.enumerated() {
            #expect(try await store.read(try RemotePath("cli/\(name)")) == Data("from the cli \(index)".utf8), "\(name)")
        }
        try await store.delete("dir")
        try await store.delete("cli")
        await store.close()
    }

    /// The multipart round trip whose memory the child process below measures.
    static let largeSize = 64 << 20

    @Test("a 64 MiB multipart upload and its download stay in bounded memory (measured in a child process)", .enabled(if: S3TestServer.enabled))
    func largeMultipartRoundTripHasBoundedMemory() async throws {
        let report = try await IsolatedRoundTrip.run(childTest: "s3RoundTripInChildProcess")
        #expect(report.identical, "the downloaded file differs from the uploaded one")
        if Sanitizers.memoryCanBeMeasured {
            #expect(report.peakGrowth < 32 << 20, "peak memory grew by \(report.peakGrowth >> 20) MiB for a 64 MiB transfer")
        }
        print("S3 64 MiB multipart round trip: peak memory growth \(report.peakGrowth >> 10) KiB")
    }

    @Test(.enabled(if: IsolatedRoundTrip.isChild, "runs only as the child of the round-trip test"))
    func s3RoundTripInChildProcess() async throws {
        let store = try S3TestServer.moto.freshStore()
        try await IsolatedRoundTrip.measure(size: Self.largeSize, seed: 17) { source, copy in
            try await store.upload(contentsOf: source, to: "large.bin")
            #expect(try await store.exists("large.bin")?.size == Int64(Self.largeSize))
            try await store.download("large.bin", to: copy)
        }
        try await store.delete("large.bin")
        await store.close()
    }
}
