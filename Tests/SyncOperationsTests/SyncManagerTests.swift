import Foundation
import GRDB
import InMemoryRemote
import RemoteProtocol
@testable import SyncCore
import Testing

@Suite("Document sync manager: progress, coalescing, counting")
struct SyncManagerTests {
    @Test("progress events follow the phases and count the downloaded bytes", arguments: Backend.allCases)
    func progressEvents(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let anna = try TestClient("anna", remote: remote.store)
        let ben = try TestClient("ben", remote: remote.store)
        try await ben.sync()
        try anna.execute("INSERT INTO tag VALUES ('t1', 'one'), ('t2', 'two')")
        try await anna.sync()
        try ben.execute("INSERT INTO tag VALUES ('t3', 'three')")

        let events = ben.manager.progressEvents()
        let collector = Task {
            var collected: [SyncProgress] = []
            for await event in events {
                collected.append(event)
                if event.phase == .finished { break }
            }
            return collected
        }
        let report = try await ben.sync()
        let collected = await collector.value
        let order = SyncProgress.Phase.allCases
        let phases = collected.map(\.phase)
        #expect(phases.first == .listing)
        #expect(phases.last == .finished)
        #expect(zip(phases, phases.dropFirst()).allSatisfy { order.firstIndex(of: $0)! <= order.firstIndex(of: $1)! })
        #expect(Set(phases) == [.listing, .downloading, .applying, .pushing, .recording, .finished])
        let applying = try #require(collected.last { $0.phase == .applying })
        #expect(applying.itemsTotal == 1)
        #expect(applying.bytesTotal > 0)
        #expect(applying.bytesDone == applying.bytesTotal)
        #expect(applying.bytesTotal == report.bytesDownloaded)
        #expect(report.appliedSets == 1)
        #expect(report.appliedChanges == 2)
        #expect(report.pushedChanges == 1)
        #expect(report.pushedSetName.flatMap(ChangeSetName.init(fileName:)) != nil)
    }

    @Test("requests made during a sync are coalesced into one follow-up sync")
    func requestsDuringASyncAreCoalesced() async throws {
        let memory = InMemoryRemoteStore()
        let gate = Gate()
        let store = GatedRemoteStore(base: memory, gate: gate)
        let anna = try TestClient("anna", remote: store)
        let ben = try TestClient("ben", remote: memory)
        try await ben.sync()
        try anna.execute("INSERT INTO tag VALUES ('t1', 'before')")

        let first = Task { try await anna.sync() }
        await gate.untilEntered()  // the first sync has written its set and is held writing the marker announcing it
        try anna.execute("INSERT INTO tag VALUES ('t2', 'during')")
        let followers = (0..<3).map { _ in Task { try await anna.sync() } }
        while await anna.manager.waitingSyncRequests < 3 {
            await Task.yield()
        }
        await memory.resetStatistics()
        await gate.open()

        let firstReport = try await first.value
        var followerReports: [SyncReport] = []
        for follower in followers {
            followerReports.append(try await follower.value)
        }
        #expect(firstReport.pushedChanges == 1)
        #expect(Set(followerReports.map(\.startedAt)).count == 1)
        #expect(followerReports.allSatisfy { $0.pushedChanges == 1 })
        // Two syncs in all, each uploading its marker, then its change set.
        #expect(await memory.statistics.requests(of: .upload) == 4)
        try await ben.sync()
        #expect(try ben.count("tag") == 2)
    }

    @Test("the counting store counts every request and byte, as the backend sees them")
    func countingStoreMatchesBackend() async throws {
        let memory = InMemoryRemoteStore()
        let counting = CountingRemoteStore(memory)
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        try Data(repeating: 7, count: 1_000).write(to: scratch.url)
        try await counting.createDirectory(at: "a")
        try await counting.upload(contentsOf: scratch.url, to: "a/file")
        try await counting.download("a/file", to: scratch.url)
        _ = try await counting.list("a")
        _ = try await counting.exists("a/missing")
        await #expect(throws: RemoteStoreError.self) { try await counting.download("a/missing", to: scratch.url) }
        try await counting.copy("a/file", to: "a/copy")
        try await counting.delete("a")
        let counts = counting.counts
        let statistics = await memory.statistics
        #expect(counts.requests == 8)
        #expect(counts.storeCalls == 8)
        #expect(counts.requests == statistics.totalRequests)
        #expect(counts.bytesUploaded == 1_000)
        #expect(counts.bytesDownloaded == 1_000)
    }

    @Test("requests a backend reports are counted as the server sees them, failed calls and child tasks included")
    func reportedRequestsAreCounted() async throws {
        let memory = InMemoryRemoteStore()
        let inner = CountingRemoteStore(ReportingRemoteStore(base: memory, requestsPerCall: 3))
        let outer = CountingRemoteStore(inner)
        try await outer.createDirectory(at: "a")
        await withThrowingTaskGroup(of: [RemoteItem].self) { group in
            for _ in 0..<4 {
                group.addTask { try await outer.list("a") }
            }
        }
        await #expect(throws: RemoteStoreError.self) { try await outer.list("missing") }
        #expect(inner.counts.storeCalls == 6)
        #expect(inner.counts.requests == 18)
        #expect(outer.counts.storeCalls == 6)
        #expect(outer.counts.requests == 18)
        // Outside a measurement a report goes nowhere.
        RemoteRequestCounter.record()
        #expect(outer.counts.requests == 18)
    }
}

/// Passes every call to `base`, reporting `requestsPerCall` protocol requests for each.
struct ReportingRemoteStore: RemoteStore {
    let base: any RemoteStore
    let requestsPerCall: Int

    var capabilities: RemoteCapabilities { base.capabilities }

    private func reporting<Result>(_ body: () async throws -> Result) async throws -> Result {
        RemoteRequestCounter.record(requestsPerCall)
        return try await body()
    }

    func exists(_ path: RemotePath) async throws -> RemoteItem? { try await reporting { try await base.exists(path) } }
    func createDirectory(at path: RemotePath) async throws { try await reporting { try await base.createDirectory(at: path) } }
    func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        try await reporting { try await base.upload(contentsOf: localFile, to: path) }
    }
    func download(_ path: RemotePath, to localFile: URL) async throws { try await reporting { try await base.download(path, to: localFile) } }
    func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        try await reporting { try await base.copy(source, to: destination) }
    }
    func list(_ directory: RemotePath) async throws -> [RemoteItem] { try await reporting { try await base.list(directory) } }
    func delete(_ path: RemotePath) async throws { try await reporting { try await base.delete(path) } }
}

/// Holds the first caller of ``pass()`` until ``open()``.
actor Gate {
    private var isOpen = false
    private var entered = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var watchers: [CheckedContinuation<Void, Never>] = []

    func pass() async {
        guard !isOpen else { return }
        entered = true
        watchers.forEach { $0.resume() }
        watchers = []
        await withCheckedContinuation { held.append($0) }
    }

    func untilEntered() async {
        guard !entered else { return }
        await withCheckedContinuation { watchers.append($0) }
    }

    func open() {
        isOpen = true
        held.forEach { $0.resume() }
        held = []
    }
}

/// Passes every call to `base`, holding uploads of last-sync markers at the gate.
struct GatedRemoteStore: RemoteStore {
    let base: any RemoteStore
    let gate: Gate

    var capabilities: RemoteCapabilities { base.capabilities }
    func exists(_ path: RemotePath) async throws -> RemoteItem? { try await base.exists(path) }
    func createDirectory(at path: RemotePath) async throws { try await base.createDirectory(at: path) }
    func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        if path.parent?.name == "RecentSyncs" {
            await gate.pass()
        }
        try await base.upload(contentsOf: localFile, to: path)
    }
    func download(_ path: RemotePath, to localFile: URL) async throws { try await base.download(path, to: localFile) }
    func copy(_ source: RemotePath, to destination: RemotePath) async throws { try await base.copy(source, to: destination) }
    func delete(_ path: RemotePath) async throws { try await base.delete(path) }

    func list(_ directory: RemotePath) async throws -> [RemoteItem] { try await base.list(directory) }
}
