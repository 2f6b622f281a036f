import Foundation
import RemoteProtocol

/// What the names in one document's remote directories say about its history, read with
/// listings only: every client's change sets (with their stored sizes), vacuum markers, last-sync
/// markers, whole-store units, the integrity key, and every name the format does not know.
///
/// `verify`, `log` and point-in-time restore start from it; it never downloads a file.
struct DocumentHistoryListing: Sendable {
    /// One change set found in a client's directory.
    struct ListedSet: Sendable, Hashable {
        var client: SyncIdentifier
        var name: ChangeSetName
        /// Its stored size (after compression and the codec), when the store reports it.
        var size: Int64?
    }

    /// A listed name that no rule of the remote format explains.
    struct UnknownEntry: Sendable, Hashable {
        var path: RemotePath
        var isDirectory: Bool
    }

    /// The document's integrity key, `nil` when it has none (it does not exist).
    var integrityKey: String?
    /// Whether `documentInfo.json` exists (the document's creation completed).
    var isComplete = false
    /// Every change set of every client, in apply order (clock, id, then client).
    var sets: [ListedSet] = []
    /// Every vacuum marker by client, newest last.
    var vacuumMarkers: [SyncIdentifier: [VacuumMarkerName]] = [:]
    /// The clients with a `SyncChanges/` directory (registered to the document).
    var clientDirectories: Set<SyncIdentifier> = []
    /// The listing of `RecentSyncs/` (empty if it is missing), made before the change-set
    /// directories were listed.
    var recentSyncs: [RemoteItem] = []
    /// The listing of `RecentSyncs/` made again after them: markers only move forward, so a set
    /// uploaded while the directories were listed is announced by one of the two.
    var recentSyncsAfterSets: [RemoteItem] = []
    /// Whether `SyncChanges/` exists (a document without it is broken, and its markers say
    /// nothing about removed clients).
    var hasSyncChangesDirectory = false
    /// Every whole-store unit, complete or not, oldest first.
    var units: [WholeStoreCatalog.Unit] = []
    /// The tombstones in `DeletedClients/` of clients removed from the document (whose change
    /// sets went with them).
    var removedClients: [RemoteItem] = []
    /// Names the format does not know, anywhere in the document.
    var unknown: [UnknownEntry] = []

    /// The newest set each client's vacuum removed (with every older set of that client).
    var newestVacuumed: [SyncIdentifier: ChangeSetName] {
        vacuumMarkers.compactMapValues { $0.map(\.newestRemoved).max() }
    }

    /// Lists the document at `layout`.
    static func read(remote: CodedRemote, layout: DocumentLayout, format: RemoteFormatFile) async throws -> DocumentHistoryListing {
        var listing = DocumentHistoryListing()
        let known = Set([layout.documentInfo.name] + layout.skeleton(format: format).map(\.name))
        for item in try await remote.listIfPresent(layout.root) ?? [] {
            if item.name == layout.documentInfo.name, !item.isDirectory {
                listing.isComplete = true
            } else if !known.contains(item.name) || (item.name == layout.documentInfo.name) {
                listing.unknown.append(UnknownEntry(path: item.path, isDirectory: item.isDirectory))
            }
        }
        listing.recentSyncs = try await remote.listIfPresent(layout.recentSyncs) ?? []
        listing.integrityKey = format.keepsIntegrityKeyInRecentSyncs
            ? try await IntegrityKeyFile.key(listed: listing.recentSyncs, of: layout, format: format, through: remote)
            : try await IntegrityKeyFile.currentKey(of: layout, format: format, through: remote)
        for item in listing.recentSyncs where !Self.isKnownRecentSyncEntry(item, format: format) {
            listing.unknown.append(UnknownEntry(path: item.path, isDirectory: item.isDirectory))
        }
        try await listing.readChangeSets(remote: remote, layout: layout)
        listing.recentSyncsAfterSets = try await remote.listIfPresent(layout.recentSyncs) ?? []
        listing.units = try await WholeStoreCatalog(remote: remote, layout: layout).units()
        listing.removedClients = (try await remote.listIfPresent(layout.deletedClients) ?? []).filter { !$0.isDirectory }
        for unit in listing.units {
            let expected = Set([WholeStoreManifest.manifestFileName, WholeStoreManifest.indexFileName] + WholeStoreCompression.allCases.map(\.storeFileName))
            for file in unit.files where !expected.contains(file.name) || file.isDirectory {
                listing.unknown.append(UnknownEntry(path: file.path, isDirectory: file.isDirectory))
            }
        }
        for item in try await remote.listIfPresent(layout.wholeStores) ?? [] where item.isDirectory {
            guard let client = try? SyncIdentifier(item.name) else {
                listing.unknown.append(UnknownEntry(path: item.path, isDirectory: true))
                continue
            }
            for entry in try await remote.listIfPresent(layout.wholeStores(of: client)) ?? []
            where !entry.isDirectory || WholeStoreUnitName(directoryName: entry.name) == nil {
                listing.unknown.append(UnknownEntry(path: entry.path, isDirectory: entry.isDirectory))
            }
        }
        return listing
    }

    private static func isKnownRecentSyncEntry(_ item: RemoteItem, format: RemoteFormatFile) -> Bool {
        guard !item.isDirectory else { return false }
        if RecentSyncName(fileName: item.name) != nil { return true }
        return format.keepsIntegrityKeyInRecentSyncs && IntegrityKeyFile.key(in: [item], format: format) != nil
    }

    /// The ids of every change set listed now (the directories listed again).
    static func listedSetIDs(remote: CodedRemote, layout: DocumentLayout) async throws -> Set<String> {
        var again = DocumentHistoryListing()
        try await again.readChangeSets(remote: remote, layout: layout)
        return Set(again.sets.map(\.name.id))
    }

    private mutating func readChangeSets(remote: CodedRemote, layout: DocumentLayout) async throws {
        let directories = try await remote.listIfPresent(layout.syncChanges)
        hasSyncChangesDirectory = directories != nil
        for item in directories ?? [] {
            guard item.isDirectory, let client = try? SyncIdentifier(item.name) else {
                unknown.append(UnknownEntry(path: item.path, isDirectory: item.isDirectory))
                continue
            }
            clientDirectories.insert(client)
            for file in try await remote.listIfPresent(layout.changeSets(of: client)) ?? [] {
                if !file.isDirectory, let name = ChangeSetName(fileName: file.name) {
                    sets.append(ListedSet(client: client, name: name, size: file.size))
                } else if !file.isDirectory, let marker = VacuumMarkerName(fileName: file.name) {
                    vacuumMarkers[client, default: []].append(marker)
                } else {
                    unknown.append(UnknownEntry(path: file.path, isDirectory: file.isDirectory))
                }
            }
        }
        sets.sort { ($0.name, $0.client.rawValue) < ($1.name, $1.client.rawValue) }
        for client in vacuumMarkers.keys {
            vacuumMarkers[client]?.sort { $0.newestRemoved < $1.newestRemoved }
        }
    }
}
