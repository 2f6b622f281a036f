import Foundation
import InMemoryRemote
import RemoteProtocol
import Testing

/// What `InMemoryRemoteStore` adds for tests of the sync engine: fault injection, counters,
/// latency, capabilities and the `memory://` registry.
struct InMemoryRemoteStoreTests {
    private let file: RemotePath = "file"

    // MARK: Fault injection

    @Test func nthCallOfAPrimitiveFailsBeforeItsEffect() async throws {
        let store = InMemoryRemoteStore()
        await store.failCall(3, of: .upload, code: .timedOut)
        try await store.write(Data("one".utf8), to: "a")
        _ = try await store.exists("a")
        try await store.write(Data("two".utf8), to: "b")
        let error = try await #require(throws: RemoteStoreError.self) { try await store.write(Data("three".utf8), to: "c") }
        #expect(error.code == .timedOut)
        #expect(error.path == "c")
        #expect(try await store.exists("c") == nil)
        try await store.write(Data("four".utf8), to: "c")
        #expect(try await store.read("c") == Data("four".utf8))
    }

    @Test func failureAfterTheEffectAppliesTheWriteButReportsAnError() async throws {
        let store = InMemoryRemoteStore()
        await store.failCall(of: .upload, timing: .afterEffect)
        let error = try await #require(throws: RemoteStoreError.self) { try await store.write(Data("applied".utf8), to: file) }
        #expect(error.code == .unavailable)
        #expect(error.isRetryable)
        #expect(try await store.read(file) == Data("applied".utf8))

        await store.failCall(of: .delete, timing: .afterEffect)
        await #expect(throws: RemoteStoreError.self) { try await store.delete(file) }
        #expect(try await store.exists(file) == nil)
    }

    @Test func downloadFailingAfterItsEffectCountsTheBytesButWritesNoLocalFile() async throws {
        let store = InMemoryRemoteStore()
        try await store.write(Data(count: 1000), to: file)
        await store.failCall(of: .download, timing: .afterEffect)
        let local = try LocalScratchFile()
        defer { local.remove() }
        await #expect(throws: RemoteStoreError.self) { try await store.download(file, to: local.url) }
        #expect(!FileManager.default.fileExists(atPath: local.url.path))
        #expect(await store.statistics.bytesDownloaded == 1000)
    }

    @Test func everyCallFailsUntilHealed() async throws {
        let store = InMemoryRemoteStore()
        try await store.createDirectory(at: "directory")
        await store.failEveryCall(code: .permissionDenied)
        for attempt in 0..<3 {
            let error = try await #require(throws: RemoteStoreError.self, "attempt \(attempt)") { try await store.list("directory") }
            #expect(error.code == .permissionDenied)
        }
        await #expect(throws: RemoteStoreError.self) { try await store.exists("directory") }
        await store.heal()
        #expect(try await store.list("directory").isEmpty)
    }

    @Test func everyCallOfOnePrimitiveFailsWhileOthersWork() async throws {
        let store = InMemoryRemoteStore()
        await store.failEveryCall(of: .copy)
        try await store.write(Data("x".utf8), to: file)
        await #expect(throws: RemoteStoreError.self) { try await store.copy(file, to: "copy") }
        await #expect(throws: RemoteStoreError.self) { try await store.copy(file, to: "copy") }
        #expect(try await store.read(file) == Data("x".utf8))
        await store.heal()
        try await store.copy(file, to: "copy")
        #expect(try await store.read("copy") == Data("x".utf8))
    }

    @Test func healRemovesWaitingFaults() async throws {
        let store = InMemoryRemoteStore()
        await store.failCall(1, of: .list)
        await store.heal()
        #expect(try await store.list(.root).isEmpty)
    }

    @Test(arguments: InMemoryRemoteStore.Primitive.allCases)
    func faultsHitOnlyTheirPrimitive(_ primitive: InMemoryRemoteStore.Primitive) async throws {
        let store = InMemoryRemoteStore()
        try await store.write(Data("content".utf8), to: file)
        try await store.createDirectory(at: "directory")
        await store.failCall(of: primitive, code: .rateLimited)
        for other in InMemoryRemoteStore.Primitive.allCases where other != primitive {
            try await call(other, on: store)
        }
        let error = try await #require(throws: RemoteStoreError.self) { try await call(primitive, on: store) }
        #expect(error.code == .rateLimited)
        try await call(primitive, on: store)
    }

    /// One successful call of `primitive` that leaves the store as it found it.
    private func call(_ primitive: InMemoryRemoteStore.Primitive, on store: InMemoryRemoteStore) async throws {
        switch primitive {
        case .exists: _ = try await store.exists(file)
        case .createDirectory: try await store.createDirectory(at: "directory")
        case .upload: try await store.write(Data("content".utf8), to: file)
        case .download: _ = try await store.read(file)
        case .copy: try await store.copy(file, to: file)
        case .list: _ = try await store.list(.root)
        case .delete: try await store.delete("missing")
        }
    }

    // MARK: Counters

    @Test func countsRequestsPerPrimitiveAndBytes() async throws {
        let store = InMemoryRemoteStore()
        try await store.createDirectory(at: "d")
        try await store.write(Data(count: 300), to: "d/a")
        try await store.write(Data(count: 200), to: "d/b")
        _ = try await store.read("d/a")
        try await store.copy("d/a", to: "d/c")
        _ = try await store.list("d")
        _ = try await store.exists("d/missing")
        await #expect(throws: RemoteStoreError.self) { try await store.read("d/missing") }
        try await store.delete("d")

        let statistics = await store.statistics
        #expect(statistics.requests == [.createDirectory: 1, .upload: 2, .download: 2, .copy: 1, .list: 1, .exists: 1, .delete: 1])
        #expect(statistics.requests(of: .upload) == 2)
        #expect(statistics.totalRequests == 9)
        #expect(statistics.bytesUploaded == 500)
        #expect(statistics.bytesDownloaded == 300)

        await store.resetStatistics()
        #expect(await store.statistics == InMemoryRemoteStore.Statistics())
    }

    @Test func failedAndInjectedCallsAreCounted() async throws {
        let store = InMemoryRemoteStore()
        await store.failEveryCall(of: .list)
        await #expect(throws: RemoteStoreError.self) { try await store.list(.root) }
        await #expect(throws: RemoteStoreError.self) { try await store.list("missing") }
        #expect(await store.statistics.requests(of: .list) == 2)
    }

    // MARK: Latency

    @Test func latencyDelaysEveryCallByAtLeastItsDuration() async throws {
        let store = InMemoryRemoteStore(latency: .milliseconds(20))
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            try await store.createDirectory(at: "a")
            _ = try await store.exists("a")
            _ = try await store.list("a")
        }
        #expect(elapsed >= .milliseconds(60))
    }

    @Test func callCancelledDuringItsLatencyHasNoEffect() async throws {
        let store = InMemoryRemoteStore()
        await store.setLatency(.seconds(3600))
        let creation = Task { try await store.createDirectory(at: "never") }
        creation.cancel()
        await #expect(throws: CancellationError.self) { try await creation.value }
        await store.setLatency(nil)
        #expect(try await store.exists("never") == nil)
    }

    // MARK: Capabilities and dates

    @Test func capabilitiesAreDeclaredAsConfigured() {
        #expect(InMemoryRemoteStore().capabilities == InMemoryRemoteStore.defaultCapabilities)
        #expect(InMemoryRemoteStore.defaultCapabilities.atomicReplace)
        #expect(InMemoryRemoteStore.defaultCapabilities.serverSideCopy)
        #expect(InMemoryRemoteStore.defaultCapabilities.modificationTimePrecision == .milliseconds(1))
        let weak = RemoteCapabilities(serverSideCopy: false, atomicReplace: false, modificationTimePrecision: .seconds(1))
        #expect(InMemoryRemoteStore(capabilities: weak).capabilities == weak)
    }

    @Test func modificationDatesFollowTheDeclaredPrecision() async throws {
        let seconds = InMemoryRemoteStore(
            capabilities: RemoteCapabilities(serverSideCopy: true, atomicReplace: true, modificationTimePrecision: .seconds(1))
        )
        try await seconds.write(Data(), to: file)
        let date = try #require(try await seconds.exists(file)?.modificationDate)
        #expect(date.timeIntervalSince1970 == date.timeIntervalSince1970.rounded(.down))

        let undated = InMemoryRemoteStore(
            capabilities: RemoteCapabilities(serverSideCopy: true, atomicReplace: true, modificationTimePrecision: nil)
        )
        try await undated.write(Data(), to: file)
        #expect(try await undated.exists(file)?.modificationDate == nil)
        #expect(try await undated.list(.root).allSatisfy { $0.modificationDate == nil })
    }

    // MARK: Sharing

    @Test func sameNameIsTheSameStore() async throws {
        let name = "shared-\(UUID().uuidString)"
        let first = InMemoryRemoteStore.named(name)
        #expect(first === InMemoryRemoteStore.named(name))
        #expect(first !== InMemoryRemoteStore.named(name + "-other"))
    }

    @Test func memoryURLsOfTheSameNameShareOneStore() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(InMemoryRemoteStore.self)
        #expect(registry.schemes == ["memory"])
        let name = "Clients-\(UUID().uuidString)"
        let url = try #require(URL(string: "memory://\(name)"))
        let alice = try await registry.makeStore(for: url)
        let bob = try await registry.makeStore(for: url)
        #expect((alice as? InMemoryRemoteStore) === (bob as? InMemoryRemoteStore))
        #expect((alice as? InMemoryRemoteStore) === InMemoryRemoteStore.named(name))
        try await alice.write(Data("from alice".utf8), to: file)
        #expect(try await bob.read(file) == Data("from alice".utf8))
    }

    @Test(arguments: ["memory://", "memory://name/sub", "memory://name?x=1", "memory:///name"])
    func malformedMemoryURLsAreRefused(_ string: String) async throws {
        let url = try #require(URL(string: string))
        let error = try await #require(throws: RemoteStoreError.self) {
            try await InMemoryRemoteStore.makeStore(for: RemoteStoreConfiguration(url: url))
        }
        #expect(error.code == .unsupported)
        #expect(error.message.contains("memory://name"))
    }
}
