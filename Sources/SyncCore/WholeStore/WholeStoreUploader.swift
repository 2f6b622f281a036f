import Foundation
import RemoteProtocol

/// Uploads a snapshot of the local database as a new immutable whole-store unit, then removes this
/// client's older units (TICoreDataSync's whole-store upload, with its non-atomic replace fixed).
///
/// Reports ``SyncProgress/Phase/compressing`` (per chunk of the snapshot) and
/// ``SyncProgress/Phase/uploadingStore`` (per file; the manifest is the last item and adds no
/// bytes, its size is only known as it is written) to `progress`.
///
/// Order of writes, so a reader never sees a half-written unit and an interruption at any step
/// leaves the previous unit usable:
/// 1. `WholeStore/<client>/<clock>-<id>.wholestore/store.sqlite.zst` (the snapshot, compressed
///    with ``WholeStoreCompression/written``, through the codec);
/// 2. `appliedSets.json` (the change sets the snapshot contains);
/// 3. `manifest.json` **last** (sizes and SHA-256 of both): the unit is now complete;
/// 4. every other unit directory of this client (older units and leftovers of interrupted
///    uploads) is deleted, except the complete units ``keepHistoryFor`` keeps; a failure here does not fail the upload (the new unit is complete and
///    the newest) and is reported in ``WholeStoreUpload/cleanupFailure``.
struct WholeStoreUploader: Sendable {
    let remote: CodedRemote
    let layout: DocumentLayout
    let clientID: SyncIdentifier
    let integrityKey: String
    /// Receives the upload's progress events.
    var progress: @Sendable (SyncProgress) -> Void = { _ in }
    /// Keep this client's older units taken within this period, and the newest one before it
    /// (for point-in-time restore); `nil`: delete every older unit.
    var keepHistoryFor: TimeInterval?
    /// The time ``keepHistoryFor`` is measured from.
    var now = Date()

    /// Uploads `snapshot` (a file written by ``LocalStore/snapshot(to:)`` holding `appliedSetIDs`)
    /// as a unit named after `clock`.
    func upload(snapshot: URL, appliedSetIDs: [String], clock: HLCTimestamp) async throws -> WholeStoreUpload {
        let unit = WholeStoreUnitName(clock: clock)
        let compression = WholeStoreCompression.written
        let index = try LocalScratchFile()
        defer { index.remove() }
        let compressed = try LocalScratchFile()
        defer { compressed.remove() }
        let uncompressed: WholeStoreManifest.File
        let store: WholeStoreManifest.File
        let indexFile: WholeStoreManifest.File
        do {
            (uncompressed, store, indexFile) = try await BlockingWork.run { [progress] in
                try JSONEncoder().encode(WholeStoreIndex(appliedSetIDs: appliedSetIDs)).write(to: index.url)
                let uncompressed = try FileDigest.describe(snapshot)
                progress(SyncProgress(phase: .compressing, bytesTotal: uncompressed.size))
                try compression.compress(snapshot, to: compressed.url) { done in
                    progress(SyncProgress(phase: .compressing, bytesDone: done, bytesTotal: uncompressed.size))
                }
                return (uncompressed, try FileDigest.describe(compressed.url), try FileDigest.describe(index.url))
            }
        } catch {
            throw SyncError(.local, "cannot prepare the whole store for upload: \(error)", underlying: error)
        }
        let bytesTotal = store.size + indexFile.size
        let uploaded = { [progress] (items: Int, bytes: Int64) in
            progress(SyncProgress(phase: .uploadingStore, itemsDone: items, itemsTotal: 3, bytesDone: bytes, bytesTotal: bytesTotal))
        }
        uploaded(0, 0)
        try await remote.createDirectory(layout.wholeStoreUnit(unit, of: clientID))
        try await remote.upload(compressed.url, to: layout.wholeStoreFile(compression.storeFileName, of: unit, client: clientID))
        uploaded(1, store.size)
        try await remote.upload(index.url, to: layout.wholeStoreFile(WholeStoreManifest.indexFileName, of: unit, client: clientID))
        uploaded(2, bytesTotal)
        let manifest = WholeStoreManifest(
            clientID: clientID, unit: unit, integrityKey: integrityKey, createdAt: Date(), compression: compression,
            appliedSetCount: appliedSetIDs.count, uncompressedStore: uncompressed,
            files: [compression.storeFileName: store, WholeStoreManifest.indexFileName: indexFile]
        )
        try await remote.writeJSON(manifest, to: layout.wholeStoreManifest(unit, of: clientID))
        uploaded(3, bytesTotal)
        var upload = WholeStoreUpload(unit: unit, manifest: manifest, removedUnits: [])
        do {
            let kept = try await unitsKeptForHistory()
            for item in try await remote.listIfPresent(layout.wholeStores(of: clientID)) ?? []
            where item.name != unit.directoryName && !kept.contains(item.name) {
                try await remote.delete(layout.wholeStores(of: clientID) / item.name)
                if let old = WholeStoreUnitName(directoryName: item.name) { upload.removedUnits.append(old) }
            }
        } catch {
            upload.cleanupFailure = "\(error)"
        }
        upload.removedUnits.sort()
        return upload
    }

    /// The directory names of this client's complete older units that ``keepHistoryFor`` keeps:
    /// those taken within it, and the newest one taken before it, from which a restore to any
    /// moment of the period starts.
    private func unitsKeptForHistory() async throws -> Set<String> {
        guard let keepHistoryFor else { return [] }
        let cutoff = now.addingTimeInterval(-keepHistoryFor)
        let complete = try await WholeStoreCatalog(remote: remote, layout: layout).units(of: clientID).filter(\.isComplete).map(\.name)
        let base = complete.filter { $0.date <= cutoff }.max()
        return Set(complete.filter { $0.date > cutoff || $0 == base }.map(\.directoryName))
    }
}
