import Foundation
import SyncCore
import Testing

@Suite("Whole-store progress events")
struct WholeStoreProgressTests {
    @Test("an upload and a download report their phases, with counts that grow to their totals", arguments: Backend.allCases)
    func uploadAndDownloadProgress(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let (anna, _) = try await TestClient.syncedPair(on: remote)
        // Enough rows for a store of several compression chunks.
        let body = String(repeating: "x", count: 2_000)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        for batch in 0..<12 {
            let values = (0..<100).map { "('n\(batch)-\($0)', 'f1', 'Note \($0)', '\(body)\(batch)\($0)', \($0))" }
            try anna.execute("INSERT INTO note VALUES " + values.joined(separator: ", "))
        }

        let uploadEvents = Self.collect(anna.manager.progressEvents()) { $0.phase == .uploadingStore && $0.itemsDone == $0.itemsTotal }
        let upload = try await anna.manager.uploadWholeStore()
        let uploaded = await uploadEvents.value.filter(\.phase.isWholeStoreTransfer)
        #expect(Self.phases(uploaded) == [.snapshotting, .compressing, .uploadingStore])
        let compressing = uploaded.filter { $0.phase == .compressing }
        #expect(compressing.count > 2, "one event per 1 MiB block of the snapshot")
        #expect(compressing.last?.bytesTotal == upload.manifest.uncompressedStore.size)
        Self.expectMonotonicToTotals(compressing)
        let uploading = uploaded.filter { $0.phase == .uploadingStore }
        #expect(uploading.map(\.itemsDone) == [0, 1, 2, 3])
        #expect(uploading.last?.bytesTotal == upload.manifest.files.values.map(\.size).reduce(0, +))
        Self.expectMonotonicToTotals(uploading)

        let carl = try TestClient("carl", remote: remote.store)
        let downloadEvents = Self.collect(carl.manager.progressEvents()) { $0.phase == .finished }
        let report = try await carl.manager.downloadWholeStore()
        #expect(report.wholeStoreInstalled?.unit == upload.unit)
        let downloaded = await downloadEvents.value.filter(\.phase.isWholeStoreTransfer)
        #expect(Self.phases(downloaded) == [.downloadingStore, .decompressing, .verifying, .installing])
        let downloading = downloaded.filter { $0.phase == .downloadingStore }
        #expect(downloading.map(\.itemsDone) == [0, 1, 2])
        #expect(downloading.last?.bytesTotal == upload.manifest.files.values.map(\.size).reduce(0, +))
        Self.expectMonotonicToTotals(downloading)
        let decompressing = downloaded.filter { $0.phase == .decompressing }
        #expect(decompressing.last?.bytesTotal == upload.manifest.files[WholeStoreCompression.written.storeFileName]?.size)
        Self.expectMonotonicToTotals(decompressing)
        #expect(try carl.count("note") == 1_200)
    }

    /// Collects `events` until one satisfies `isLast` (included).
    private static func collect(
        _ events: AsyncStream<SyncProgress>, until isLast: @escaping @Sendable (SyncProgress) -> Bool
    ) -> Task<[SyncProgress], Never> {
        Task {
            var collected: [SyncProgress] = []
            for await event in events {
                collected.append(event)
                if isLast(event) { break }
            }
            return collected
        }
    }

    /// The phases of `events`, each once, in the order they first appear.
    private static func phases(_ events: [SyncProgress]) -> [SyncProgress.Phase] {
        events.map(\.phase).reduce(into: []) { phases, phase in
            if phases.last != phase { phases.append(phase) }
        }
    }

    /// Expects the items and bytes of one phase's events to never shrink, to keep their totals,
    /// and to end at them.
    private static func expectMonotonicToTotals(_ events: [SyncProgress], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!events.isEmpty, sourceLocation: sourceLocation)
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(later.bytesDone >= earlier.bytesDone && later.itemsDone >= earlier.itemsDone, sourceLocation: sourceLocation)
            #expect(later.bytesTotal == earlier.bytesTotal && later.itemsTotal == earlier.itemsTotal, sourceLocation: sourceLocation)
        }
        guard let last = events.last else { return }
        #expect(last.bytesTotal > 0, sourceLocation: sourceLocation)
        #expect(last.bytesDone == last.bytesTotal, sourceLocation: sourceLocation)
        #expect(last.itemsDone == last.itemsTotal, sourceLocation: sourceLocation)
    }
}
