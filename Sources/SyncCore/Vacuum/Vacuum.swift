import Foundation
import RemoteProtocol

/// Removes this client's change sets that nobody needs any more (TICoreDataSync's vacuum, without
/// its pin by a dead client and with explicit history-loss detection).
///
/// A set of this client is removed when **every** registered, non-retired client has applied it
/// (the `appliedThrough` entry for this client in that client's newest `RecentSyncs/` record) and
/// **every** complete whole store of the current document incarnation (except retired clients')
/// contains it (its `appliedSets.json`), and at least one does, and it is older than
/// ``VacuumOptions/keepHistoryFor`` when history is kept on purpose. Sets go oldest first and only
/// as an unbroken prefix.
///
/// Reads: the listings of this client's sets, of `RecentSyncs/` and of `SyncChanges/`, and the
/// whole stores' catalog. Then, only when the oldest set could go as far as the whole stores and
/// the history kept are concerned, `RecentSyncs/` again, one last-sync record per other client and
/// the catalog again. A client that pushed nothing, or whose sets no whole store holds yet, reads
/// no record; its report then names only those holds. The records are read before the catalog
/// that decides, as the order of a client's upload, sync and record requires (see ``run()``).
///
/// Writes, each safe to repeat: the marker `SyncChanges/<self>/<newest removed>.vacuumed` **first**
/// (so a client that could still need a removed set learns it must re-bootstrap), then the sets,
/// then older markers; then retired clients' whole stores lacking removed sets. Each client only
/// removes its **own** sets, so vacuums on several clients at once never interfere.
struct Vacuum: Sendable {
    let remote: CodedRemote
    let layout: DocumentLayout
    let clientID: SyncIdentifier
    let integrityKey: String
    let options: VacuumOptions

    /// One other registered client, as far as vacuum is concerned.
    private struct Peer {
        var client: SyncIdentifier
        var lastSync: Date?
        var appliedThrough: ChangeSetName?
    }

    func run() async throws -> VacuumReport {
        var report = VacuumReport()
        let ownFiles = try await remote.listIfPresent(layout.changeSets(of: clientID)) ?? []
        let ownSets = ownFiles.compactMap { ChangeSetName(fileName: $0.name) }.sorted()
        let oldMarkers = ownFiles.compactMap { VacuumMarkerName(fileName: $0.name) }
        var peers = try await registeredPeers()
        if let age = options.retireClientsSilentFor {
            let cutoff = options.now.addingTimeInterval(-age)
            let retired = peers.filter { ($0.lastSync ?? .distantFuture) < cutoff }.map(\.client)
            report.retiredClients = retired.sorted { $0.rawValue < $1.rawValue }
            peers.removeAll { retired.contains($0.client) }
        }
        guard let oldest = ownSets.first else { return report }
        let retired = Set(report.retiredClients)
        let held = holds(for: oldest, peers: [], units: try await wholeStores(retired: retired).counted)
        guard held.isEmpty else {
            report.holds = held
            report.keptSets = ownSets.count
            return report
        }
        // The records first, then the whole stores again: a client uploads a store, then syncs,
        // then records what it applied, so a unit completed after this listing either holds every
        // set its uploader's record says it applied or is listed here and holds the set back.
        peers = try await readingAppliedThrough(of: peers)
        let (units, retiredUnits) = try await wholeStores(retired: retired)
        var removable: [ChangeSetName] = []
        for set in ownSets {
            let holds = self.holds(for: set, peers: peers, units: units)
            if !holds.isEmpty {
                report.holds = holds
                break
            }
            removable.append(set)
        }
        report.keptSets = ownSets.count - removable.count
        guard let newest = removable.last else { return report }
        let marker = VacuumMarkerName(newestRemoved: newest)
        try await remote.write(Data(), to: layout.vacuumMarker(marker, of: clientID))
        for set in removable {
            try await remote.delete(layout.changeSet(set, of: clientID))
            report.removedSets.append(set.fileName)
        }
        for old in oldMarkers where old != marker {
            try await remote.delete(layout.vacuumMarker(old, of: clientID))
        }
        let removedIDs = Set(removable.map(\.id))
        for (unit, contained) in retiredUnits where !removedIDs.isSubset(of: contained) {
            try await remote.delete(layout.wholeStoreUnit(unit.name, of: unit.client))
            report.removedWholeStores.append(unit.name)
        }
        return report
    }

    /// What keeps `set`; empty if it may go.
    private func holds(
        for set: ChangeSetName, peers: [Peer], units: [(unit: WholeStoreCatalog.Unit, contained: Set<String>)]
    ) -> [VacuumReport.Hold] {
        var holds: [VacuumReport.Hold] = []
        for peer in peers where (peer.appliedThrough.map { $0 < set } ?? true) {
            holds.append(.init(client: peer.client, reason: .notApplied, since: peer.lastSync))
        }
        for (unit, contained) in units where !contained.contains(set.id) {
            holds.append(.init(client: unit.client, reason: .wholeStoreLacksSet(unit.name), since: unit.name.date))
        }
        if units.isEmpty {
            holds.append(.init(client: nil, reason: .noWholeStore, since: nil))
        }
        if let keep = options.keepHistoryFor, set.clock.date > options.now.addingTimeInterval(-keep) {
            holds.append(.init(client: nil, reason: .keptForHistory, since: set.clock.date))
        }
        return holds.sorted { ($0.client?.rawValue ?? "") < ($1.client?.rawValue ?? "") }
    }

    /// The other clients with a change-set directory, each with the time of its newest last-sync
    /// marker: two listings, no record read yet.
    private func registeredPeers() async throws -> [Peer] {
        let newest = try await newestMarkers()
        let directories = try await remote.listIfPresent(layout.syncChanges) ?? []
        return directories.compactMap { item in
            guard item.isDirectory, item.name != clientID.rawValue, let client = try? SyncIdentifier(item.name) else { return nil }
            return Peer(client: client, lastSync: newest[client]?.date, appliedThrough: nil)
        }
    }

    /// Each client's newest last-sync marker: one listing of `RecentSyncs/`.
    private func newestMarkers() async throws -> [SyncIdentifier: RecentSyncName] {
        RecentSyncName.newestByClient(in: try await remote.listIfPresent(layout.recentSyncs) ?? [])
    }

    /// `peers` with what each applied of this client's sets, from its newest last-sync record:
    /// `RecentSyncs/` listed again, then one read each, so that a client that synced since
    /// ``registeredPeers()`` (and deleted the marker listed then) is read at its new one. A record
    /// that cannot be read holds every set back, as one saying nothing was applied: it stays until
    /// its client records a sync again, which may be a day away (see
    /// ``SyncConfiguration/lastSyncRecordInterval``), and vacuum must not fail meanwhile.
    private func readingAppliedThrough(of peers: [Peer]) async throws -> [Peer] {
        let newest = try await newestMarkers()
        var read: [Peer] = []
        for var peer in peers {
            if let name = newest[peer.client] {
                peer.lastSync = name.date
                if let record = try await RecentSyncRecord.readable(at: layout.recentSync(name), from: remote) {
                    peer.appliedThrough = record.appliedThrough[clientID.rawValue].flatMap { ChangeSetName(fileName: $0) }
                }
            }
            read.append(peer)
        }
        return read
    }

    /// The complete units of the current incarnation with the sets each contains, split into
    /// those that count and those of retired clients; a unit in a newer format counts, as
    /// containing no set.
    private func wholeStores(retired: Set<SyncIdentifier>) async throws -> (
        counted: [(unit: WholeStoreCatalog.Unit, contained: Set<String>)],
        retired: [(unit: WholeStoreCatalog.Unit, contained: Set<String>)]
    ) {
        let catalog = WholeStoreCatalog(remote: remote, layout: layout)
        var counted: [(unit: WholeStoreCatalog.Unit, contained: Set<String>)] = []
        var ofRetired: [(unit: WholeStoreCatalog.Unit, contained: Set<String>)] = []
        for unit in try await catalog.units() where unit.isComplete {
            let contained: Set<String>
            do {
                guard try await catalog.manifest(of: unit).integrityKey == integrityKey else { continue }
                contained = Set(try await catalog.index(of: unit).appliedSetIDs)
            } catch let error as SyncError where error.code == .unsupportedFormat {
                // A newer build's unit, even a retired client's: what it contains cannot be known
                // here, so it counts as holding no set, and nothing is removed until this build
                // is upgraded.
                counted.append((unit, []))
                continue
            }
            if retired.contains(unit.client) {
                ofRetired.append((unit, contained))
            } else {
                counted.append((unit, contained))
            }
        }
        return (counted, ofRetired)
    }
}
