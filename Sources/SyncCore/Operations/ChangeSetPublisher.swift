import Foundation
import RemoteProtocol

/// Publishes this client's pending changes as one change set of a document, the push's
/// counterpart of ``ChangeSetFetcher``: write the net changes to a scratch file, compress it
/// (format 2), record it as outgoing **before** any upload, upload it through the codec, mark its
/// changes pushed.
///
/// It owns the outgoing bookkeeping (``LocalSyncState``'s outgoing set and the local store's
/// pushed marks), so a set is published exactly once: a lost reply leaves the set recorded as
/// outgoing, and the next sync settles it (``settleUnknownUpload()``) with one `exists` before
/// anything else looks at the pending changes. The orchestrator (``Synchronizer``) decides only
/// *when*: it writes the last-sync marker naming the prepared set between ``prepare()`` and
/// ``publish(_:)``, so no reader can miss the set.
struct ChangeSetPublisher: Sendable {
    let remote: CodedRemote
    let layout: DocumentLayout
    let format: RemoteFormatFile
    let clientID: SyncIdentifier
    let localStore: LocalStore
    let state: LocalSyncState

    /// A set written and recorded as outgoing, waiting for its upload. Its scratch file is
    /// removed by ``publish(_:)`` or ``discard(_:)``.
    struct Prepared {
        var outgoing: OutgoingChangeSet
        var file: LocalScratchFile
        var name: ChangeSetName { outgoing.name }
    }

    /// What a publication sent.
    struct Published {
        var name: ChangeSetName
        var changeCount: Int
        /// The bytes uploaded (compressed, before the codec).
        var byteCount: Int64
    }

    /// Writes the pending changes as a new set (compressed where the format says so) and records
    /// it as outgoing; `nil` if there is nothing to push.
    func prepare() async throws -> Prepared? {
        let scratch = try LocalScratchFile()
        var file = scratch
        let setID = UUID().uuidString
        do {
            guard let pending = try await local({ try localStore.writePendingChangeSet(to: scratch.url, setID: setID) }) else {
                scratch.remove()
                return nil
            }
            let outgoing = OutgoingChangeSet(name: ChangeSetName(clock: pending.summary.maximumClock, id: setID), pending: pending)
            if format.compressesChangeSets {
                file = try await BlockingWork.run { try Self.compressed(scratch) }
            }
            try await local { try state.setOutgoing(outgoing) }
            return Prepared(outgoing: outgoing, file: file)
        } catch {
            scratch.remove()
            file.remove()
            throw error
        }
    }

    /// Uploads a prepared set into this client's directory and marks its changes pushed; removes
    /// its scratch file either way. `starting` is called with the size before the upload.
    /// - Throws: ``SyncError`` wrapping ``RemoteStoreError/Code/notFound`` when this client's
    ///   directory is gone (the client was removed); other ``SyncError``s.
    func publish(_ prepared: Prepared, starting: (_ bytes: Int64) -> Void = { _ in }) async throws -> Published {
        defer { prepared.file.remove() }
        let outgoing = prepared.outgoing
        let size = try? FileManager.default.attributesOfItem(atPath: prepared.file.url.path)[.size] as? NSNumber
        let bytes = size?.int64Value ?? Int64(outgoing.pending.summary.byteCount)
        starting(bytes)
        try await remote.upload(prepared.file.url, intoExistingDirectoryAt: layout.changeSet(outgoing.name, of: clientID))
        try await local {
            try localStore.markPushed(outgoing.pending)
            try state.clearOutgoing()
        }
        return Published(name: outgoing.name, changeCount: outgoing.pending.summary.changeCount, byteCount: bytes)
    }

    /// Drops a prepared set that will not be uploaded (its marker could not be written): its
    /// changes stay pending, and the outgoing record is settled by the next sync.
    func discard(_ prepared: Prepared) {
        prepared.file.remove()
    }

    /// Settles a set whose upload an earlier sync started: uploads are atomic, so if the file is
    /// there it arrived whole and is marked pushed; if not, it is forgotten and its changes, still
    /// pending, go out in the next set.
    func settleUnknownUpload() async throws {
        guard let outgoing = try await local({ try state.outgoing() }) else { return }
        let alreadyMarked = try await local { try localStore.isApplied(setID: outgoing.pending.summary.header.setID) }
        if !alreadyMarked, try await remote.exists(layout.changeSet(outgoing.name, of: clientID)) != nil {
            try await local { try localStore.markPushed(outgoing.pending) }
        }
        try await local { try state.clearOutgoing() }
    }

    /// The compressed form of the set in `file` if it is smaller (removing `file` then), else `file`.
    private static func compressed(_ file: LocalScratchFile) throws -> LocalScratchFile {
        let smaller = try LocalScratchFile()
        do {
            guard try ChangeSetCompression.compress(file.url, to: smaller.url) else {
                smaller.remove()
                return file
            }
        } catch {
            smaller.remove()
            throw SyncError(.local, "the change set could not be compressed: \(error)", underlying: error)
        }
        file.remove()
        return smaller
    }

    private func local<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await localStore.performForSync(body)
    }
}
