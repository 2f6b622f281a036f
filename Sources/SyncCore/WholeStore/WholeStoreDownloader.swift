import Foundation
import GRDB
import RemoteProtocol

/// Downloads, verifies and installs a whole-store unit (TICoreDataSync's whole-store download,
/// without its file swap under open connections and without dropping unpushed changes).
///
/// 1. **Pick**: the complete units (manifest present) of the named client, or of every client,
///    newest first by the clock in their names; a unit is *usable* if its manifest carries the
///    document's current integrity key and its index contains the newest set named by every
///    client's vacuum marker (so no history it lacks has been removed).
/// 2. **Verify** into scratch files: sizes and SHA-256 from the manifest (of the compressed file,
///    then of the expanded one), SQLite `quick_check`,
///    RollingSync's tables, and the same applied sets as the index. A unit that fails is skipped
///    for the next older usable one, and so is one written with a newer schema than the local one
///    (a synced table or column this database lacks); if none is left, the first failure is thrown
///    (``SyncError/Code/corruptRemoteData`` or ``SyncError/Code/upgradeRequired``) and the local
///    database is untouched. The store is read with the application's ``configuration``; a schema
///    that needs a collation or function it lacks stops the download with
///    ``SyncError/Code/local`` (every unit would fail alike, and none is known to be damaged).
/// 3. **Install** with ``LocalStore/installWholeStore(at:resolver:inSameTransaction:)`` (one
///    transaction, unpushed changes merged with their original clocks), clearing the record of an outgoing set in the same
///    transaction (its changes are pending again) and recording that the next sync must also
///    list this client's own sets. That sync applies the tail: every set, including this
///    client's own, that the store does not contain.
///
/// Reports, for each unit it fetches, ``SyncProgress/Phase/downloadingStore`` (per file),
/// ``SyncProgress/Phase/decompressing`` (per chunk), ``SyncProgress/Phase/verifying`` and, when
/// installing, ``SyncProgress/Phase/installing`` to `progress`.
struct WholeStoreDownloader: Sendable {
    let remote: CodedRemote
    let layout: DocumentLayout
    let integrityKey: String
    /// Decides conflicts between unpushed local edits and the store's values.
    var resolver: ConflictResolver = .lastWriterWins
    /// Receives the download's progress events.
    var progress: @Sendable (SyncProgress) -> Void = { _ in }
    /// The application's GRDB configuration, which downloaded stores are checked with (its
    /// collations and functions, see ``SchemaFile``); SQLite's defaults when there is no
    /// application database at hand.
    var configuration = Configuration()

    /// Installs the newest usable unit of `client` (of any client when `nil`) into `localStore`.
    /// - Returns: `nil` when there is no usable unit at all.
    func installNewest(from client: SyncIdentifier?, into localStore: LocalStore) async throws -> WholeStoreDownload? {
        try await withNewestUsable(from: client) { unit, url in
            progress(SyncProgress(phase: .installing))
            return WholeStoreDownload(client: unit.client, unit: unit.name, installation: try await install(url, into: localStore))
        }
    }

    /// Runs `body` with the newest usable unit of `client` (of any client when `nil`) that
    /// `isAccepted` accepts, verified
    /// into a scratch file that is removed afterwards; a unit that fails verification, or for
    /// which `body` throws ``SyncError/Code/corruptRemoteData`` or ``SyncError/Code/upgradeRequired``
    /// (a store written with a newer schema), is skipped for the next older one; if none is left,
    /// the first such error is thrown.
    /// - Returns: `body`'s result, or `nil` when there is no usable unit at all.
    func withNewestUsable<Result>(
        from client: SyncIdentifier?, accepting isAccepted: (WholeStoreCatalog.Unit) -> Bool = { _ in true },
        _ body: (WholeStoreCatalog.Unit, URL) async throws -> Result
    ) async throws -> Result? {
        let catalog = WholeStoreCatalog(remote: remote, layout: layout)
        let markers = try await vacuumMarkers()
        var firstFailure: (any Error)?
        for unit in try await catalog.units(of: client).reversed() where unit.isComplete && isAccepted(unit) {
            do {
                guard let verified = try await fetchIfUsable(unit, markers: markers, catalog: catalog) else { continue }
                defer { verified.remove() }
                return try await body(unit, verified.url)
            } catch let error as SyncError where [.corruptRemoteData, .upgradeRequired, .unsupportedFormat].contains(error.code) {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
        return nil
    }

    /// The newest set each client's vacuum removed, by client.
    func vacuumMarkers() async throws -> [SyncIdentifier: ChangeSetName] {
        var markers: [SyncIdentifier: ChangeSetName] = [:]
        for item in try await remote.listIfPresent(layout.syncChanges) ?? [] where item.isDirectory {
            guard let client = try? SyncIdentifier(item.name) else { continue }
            for file in try await remote.listIfPresent(layout.changeSets(of: client)) ?? [] {
                if let marker = VacuumMarkerName(fileName: file.name) {
                    markers[client] = max(markers[client] ?? marker.newestRemoved, marker.newestRemoved)
                }
            }
        }
        return markers
    }

    /// Downloads and verifies a unit's store; `nil` if the unit is not usable (stale key or
    /// missing vacuumed history).
    /// - Throws: ``SyncError/Code/corruptRemoteData`` for a damaged unit;
    ///   ``SyncError/Code/local`` (with a ``MissingDefinitionError``) when its schema needs a
    ///   collation or function ``configuration`` does not define.
    func fetchIfUsable(
        _ unit: WholeStoreCatalog.Unit, markers: [SyncIdentifier: ChangeSetName], catalog: WholeStoreCatalog
    ) async throws -> LocalScratchFile? {
        let manifest = try await catalog.manifest(of: unit)
        guard manifest.integrityKey == integrityKey else { return nil }
        guard let compression = manifest.storeCompression else {
            throw SyncError(.corruptRemoteData, "whole store \(unit.name) of \(unit.client) uses the unknown compression '\(manifest.compression)'")
        }
        let indexSize = manifest.files[WholeStoreManifest.indexFileName]?.size ?? 0
        let storeSize = manifest.files[compression.storeFileName]?.size ?? 0
        let downloaded = { [progress] (items: Int, bytes: Int64) in
            progress(SyncProgress(phase: .downloadingStore, itemsDone: items, itemsTotal: 2, bytesDone: bytes, bytesTotal: indexSize + storeSize))
        }
        downloaded(0, 0)
        let indexFile = try await downloadVerified(WholeStoreManifest.indexFileName, of: unit, manifest: manifest)
        defer { indexFile.remove() }
        downloaded(1, indexSize)
        let indexPath = layout.wholeStoreFile(WholeStoreManifest.indexFileName, of: unit.name, client: unit.client)
        let index = try CodedRemote.decodeJSON(WholeStoreIndex.self, from: try Data(contentsOf: indexFile.url), at: indexPath)
        let contained = Set(index.appliedSetIDs)
        guard markers.values.allSatisfy({ contained.contains($0.id) }) else { return nil }
        let compressed = try await downloadVerified(compression.storeFileName, of: unit, manifest: manifest)
        defer { compressed.remove() }
        downloaded(2, indexSize + storeSize)
        let store = try LocalScratchFile()
        do {
            try await BlockingWork.run { [progress] in
                progress(SyncProgress(phase: .decompressing, bytesTotal: storeSize))
                // Never more than the manifest announces, so a damaged or hostile store cannot fill the disk.
                try compression.decompress(compressed.url, to: store.url, limit: UInt64(max(0, manifest.uncompressedStore.size))) { done in
                    progress(SyncProgress(phase: .decompressing, bytesDone: done, bytesTotal: storeSize))
                }
                progress(SyncProgress(phase: .verifying))
                guard try FileDigest.describe(store.url) == manifest.uncompressedStore else {
                    throw WholeStoreFileError(reason: "the expanded store does not match its manifest")
                }
                let inspected = try LocalStore.inspectSnapshot(at: store.url, configuration: configuration)
                guard Set(inspected.appliedSetIDs) == contained else {
                    throw WholeStoreFileError(reason: "its applied change sets differ from its index")
                }
            }
            return store
        } catch let error as MissingDefinitionError {
            // Every unit would fail alike, and the store is not known to be damaged.
            store.remove()
            throw SyncError(.local, "whole store \(unit.name) of \(unit.client) cannot be checked here: \(error)", underlying: error)
        } catch {
            store.remove()
            throw SyncError(.corruptRemoteData, "whole store \(unit.name) of \(unit.client) is unusable: \(error)", underlying: error)
        }
    }

    /// Downloads one file of a unit and checks it against the manifest.
    private func downloadVerified(_ file: String, of unit: WholeStoreCatalog.Unit, manifest: WholeStoreManifest) async throws -> LocalScratchFile {
        let path = layout.wholeStoreFile(file, of: unit.name, client: unit.client)
        guard let expected = manifest.files[file] else {
            throw SyncError(.corruptRemoteData, "the manifest of \(layout.wholeStoreUnit(unit.name, of: unit.client)) does not list \(file)")
        }
        let scratch = try LocalScratchFile()
        do {
            try await remote.download(path, to: scratch.url, immutable: true)
            let actual = try await BlockingWork.run { try FileDigest.describe(scratch.url) }
            guard actual == expected else {
                throw SyncError(
                    .corruptRemoteData,
                    "\(path) is damaged or truncated: \(actual.size) bytes instead of \(expected.size), or a different SHA-256"
                )
            }
            return scratch
        } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
            scratch.remove()
            throw SyncError(.corruptRemoteData, "\(path) is missing from a complete unit", underlying: error)
        } catch {
            scratch.remove()
            throw error
        }
    }

    private func install(_ url: URL, into localStore: LocalStore) async throws -> WholeStoreInstallation {
        do {
            let resolver = resolver
            return try await localStore.perform {
                try localStore.installWholeStore(at: url, resolver: resolver, inSameTransaction: LocalSyncState.recordWholeStoreInstalled(in:))
            }
        } catch let error as WholeStoreFileError {
            throw SyncError(.corruptRemoteData, "\(error)", underlying: error)
        } catch let error as LocalStoreError where error.code == .upgradeRequired {
            throw SyncError(.upgradeRequired, "the whole store was not installed; the local database is unchanged: \(error)", underlying: error)
        } catch {
            throw SyncError(.local, "the whole store could not be installed; the local database is unchanged: \(error)", underlying: error)
        }
    }
}
