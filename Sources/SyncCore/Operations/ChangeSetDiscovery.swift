import RemoteProtocol

/// Finds the change sets a sync must apply, with as few listings as the remote format allows.
///
/// - **Announced** (format 2, this client's own marker listed, not re-reading its own sets): the
///   listing of `RecentSyncs/` the sync already made names every client's newest set
///   (``RecentSyncName/NewestSet``); only clients whose newest set is not applied here are listed.
///   A sync with nothing new makes no listing at all here, whatever the number of clients.
/// - **Full** (format 1; the first sync after registration; after a whole-store install; when
///   this client's marker is missing): `SyncChanges/` once, then every client's directory once.
///   It also confirms that this client's own directory exists and (format 2) lists it, so the
///   next marker announces a set at least as new as any there.
///
/// Either way, a vacuum marker in a listed directory that names a set never applied here is
/// reported (``Found/missingHistory``). A directory that is not listed in the announced mode
/// belongs to a client whose every set is applied here, so none of its vacuumed sets is missing.
struct ChangeSetDiscovery: Sendable {
    let remote: CodedRemote
    let layout: DocumentLayout
    let clientID: SyncIdentifier
    /// Whether this client's own sets are applied too (after a whole-store install).
    let includeOwnSets: Bool

    /// A change set of another client found in a listing.
    struct RemoteSet: Sendable {
        var client: SyncIdentifier
        var name: ChangeSetName
        var size: Int64
    }

    /// What a discovery found.
    struct Found: Sendable {
        /// For each client known to have sets: its listed sets, oldest first (for a client whose
        /// announced newest set is applied here, that set alone).
        var known: [SyncIdentifier: [ChangeSetName]] = [:]
        /// The sets not applied here, in apply order (clock, then id, then client).
        var unapplied: [RemoteSet] = []
        /// The first client whose vacuum marker names a set never applied here.
        var missingHistory: SyncIdentifier?
        /// The newest set of this client listed or announced remotely: the next marker of this
        /// client must announce at least this one.
        var ownNewest: ChangeSetName?
        /// How the sets were found.
        var mode: Mode = .full
    }

    /// How a discovery found the sets.
    enum Mode: String, Sendable {
        case announced
        case full
    }

    /// Finds the sets; `nil` if this client's own change-set directory is missing (it was removed
    /// from the document).
    /// - Parameters:
    ///   - recentSyncs: the listing of `RecentSyncs/` (format 2), `nil` for format 1.
    ///   - applied: the ids of the sets applied here.
    func find(recentSyncs: [RemoteItem]?, applied: Set<String>) async throws -> Found? {
        let announced = recentSyncs.map(RecentSyncName.newestSetsByClient(in:)) ?? [:]
        var ownNewest: ChangeSetName?
        if case .set(let set)? = announced[clientID] {
            ownNewest = set
        }
        guard recentSyncs != nil, !includeOwnSets, announced[clientID] != nil, announced[clientID] != .unannounced else {
            guard var found = try await findListingEveryClient(applied: applied, listingOwn: recentSyncs != nil) else { return nil }
            found.ownNewest = [found.ownNewest, ownNewest].compactMap { $0 }.max()
            return found
        }
        var found = Found(ownNewest: ownNewest, mode: .announced)
        for (client, newest) in announced where client != clientID {
            switch newest {
            case .nothingPushed:
                continue
            case .set(let set) where applied.contains(set.id):
                found.known[client] = [set]
            case .set, .unannounced:
                try await list(client, applied: applied, into: &found)
            }
        }
        found.unapplied.sort { ($0.name, $0.client) < ($1.name, $1.client) }
        return found
    }

    /// The full discovery: `SyncChanges/`, then each other client's directory, and this client's
    /// own when `listingOwn` (format 2, to learn the newest set to announce) or ``includeOwnSets``.
    private func findListingEveryClient(applied: Set<String>, listingOwn: Bool) async throws -> Found? {
        guard let clients = try await remote.listIfPresent(layout.syncChanges),
            clients.contains(where: { $0.isDirectory && $0.name == clientID.rawValue })
        else { return nil }
        var found = Found(mode: .full)
        for item in clients where item.isDirectory {
            guard let client = try? SyncIdentifier(item.name) else { continue }
            if client == clientID && !includeOwnSets {
                guard listingOwn else { continue }
                let own = try await remote.listIfPresent(layout.changeSets(of: client)) ?? []
                found.ownNewest = own.compactMap { ChangeSetName(fileName: $0.name) }.max()
            } else {
                try await list(client, applied: applied, into: &found)
            }
        }
        found.unapplied.sort { ($0.name, $0.client) < ($1.name, $1.client) }
        return found
    }

    /// Lists one client's directory into `found`.
    private func list(_ client: SyncIdentifier, applied: Set<String>, into found: inout Found) async throws {
        let files = try await remote.listIfPresent(layout.changeSets(of: client)) ?? []
        var names: [ChangeSetName] = []
        for file in files where !file.isDirectory {
            if let marker = VacuumMarkerName(fileName: file.name), !applied.contains(marker.newestRemoved.id) {
                found.missingHistory = found.missingHistory ?? client
            }
            guard let name = ChangeSetName(fileName: file.name) else { continue }
            names.append(name)
            if !applied.contains(name.id) {
                found.unapplied.append(RemoteSet(client: client, name: name, size: file.size ?? 0))
            }
        }
        found.known[client] = names.sorted()
        if client == clientID {
            found.ownNewest = names.max()
        }
    }
}
