import Foundation
import Logging
import RemoteProtocol

/// One synchronization pass of a registered document (TICoreDataSync's pre-sync, sync and
/// post-sync), written once against ``RemoteStore``:
///
/// 1. **Check**: list the integrity key's directory and compare with the adopted key (format 2:
///    `RecentSyncs/`, whose listing also tells what every client published).
/// 2. **Find** the sets not applied yet (``ChangeSetDiscovery``): format 2 lists only the
///    directories of clients whose announced newest set is not applied here (a sync with nothing
///    new lists nothing more); format 1 lists `SyncChanges/` and every client's directory. Names
///    carry the clock, so the sets are ordered without any download. A vacuum marker naming a set
///    never applied here stops the pass (``Outcome/historyMissing``): the manager installs a whole
///    store, keeping unpushed changes, and runs another pass. A set whose upload an earlier sync
///    left unknown is settled now (one `exists`), before applying.
/// 3. **Download, verify, apply** each in clock order (then id), through the codec (which verifies)
///    and the change-set checksum, downloading a few sets ahead of the one being applied; the local
///    store applies each set atomically with conflict detection and records it as applied, so a set
///    is never applied twice. A set that cannot be read is reported and holds back the later sets
///    of its client until a later sync succeeds; so does a set written with a newer schema (a table
///    or column this database lacks), reported as
///    ``SyncWarning/upgradeRequired(table:column:fromClient:fileName:)`` until the application
///    migrates.
/// 4. **Record** the sync: write the new last-sync marker, which names the set about to be pushed
///    (format 2), **before** that set is uploaded, so no reader can miss it. If the marker cannot be
///    written, nothing is pushed and the sync fails; without anything to push, it is a warning.
///    A format-2 sync that pushes nothing keeps the marker it finds listed when that marker still
///    announces the right set and is younger than ``lastSyncRecordInterval`` (see
///    ``keepsMarker(announcing:listed:found:at:)``): a sync with nothing new is then one listing
///    and writes nothing, and a sync that only applies costs the listing and its downloads.
/// 5. **Push** the local pending changes (including values re-published by conflict decisions)
///    as one new immutable set, recorded locally before the upload so a lost reply neither loses
///    nor duplicates anything (see ``OutgoingChangeSet``); then delete the previous marker.
///
/// A pass that finds the document reset or this client removed stops before changing anything
/// and returns ``Outcome/registrationLost``, so the manager registers again (with the delegate's
/// decisions) and runs another pass.
struct Synchronizer: Sendable {
    /// How a pass ended.
    enum Outcome {
        case completed
        /// The document's integrity key changed or this client's directory is gone.
        case registrationLost
        /// A vacuum of `client` removed change sets this database never applied: it must install
        /// a whole store (keeping its unpushed changes) before it can sync.
        case historyMissing(client: SyncIdentifier)
    }

    let remote: CodedRemote
    let layout: DocumentLayout
    /// The application's remote format: where the key is and what markers say.
    let format: RemoteFormatFile
    let clientID: SyncIdentifier
    let integrityKey: String
    let recentSyncMarkers: [String]
    /// How old this client's marker may get before a sync that pushes nothing rewrites it (see
    /// ``SyncConfiguration/lastSyncRecordInterval``).
    let lastSyncRecordInterval: Duration
    /// Whether this client's own sets are listed and applied too (after a whole-store install).
    /// The registration stops asking for them after a sync that held none of them back: a held-back
    /// own set (it changes a row a held-back set of another client creates) waits like any other.
    let includeOwnSets: Bool
    let localStore: LocalStore
    let state: LocalSyncState
    let resolver: ConflictResolver
    /// Receives what the pass does (see ``ApplicationSyncManager/init(store:applicationID:device:codecProvider:logger:)``).
    let logger: Logger
    let progress: @Sendable (SyncProgress) -> Void

    private typealias RemoteSet = ChangeSetDiscovery.RemoteSet

    func run(into report: inout SyncReport) async throws -> Outcome {
        progress(SyncProgress(phase: .listing))
        var recentSyncs: [RemoteItem]?
        if format.keepsIntegrityKeyInRecentSyncs {
            recentSyncs = try await remote.listIfPresent(layout.recentSyncs)
            guard recentSyncs != nil, try await IntegrityKeyFile.key(listed: recentSyncs, of: layout, format: format, through: remote) == integrityKey else {
                return .registrationLost
            }
        } else if try await IntegrityKeyFile.currentKey(of: layout, format: format, through: remote) != integrityKey {
            return .registrationLost
        }
        let discovery = ChangeSetDiscovery(remote: remote, layout: layout, clientID: clientID, includeOwnSets: includeOwnSets)
        let applied = Set(try await local { try localStore.appliedSetIDs() })
        guard let found = try await discovery.find(recentSyncs: format.announcesNewestSets ? recentSyncs : nil, applied: applied) else {
            return .registrationLost
        }
        logger.debug("listed change sets", metadata: [
            "mode": "\(found.mode.rawValue)", "clients": "\(found.known.count)", "toApply": "\(found.unapplied.count)",
            "missingHistory": "\(found.missingHistory.map { "\($0)" } ?? "none")",
        ])
        if let client = found.missingHistory { return .historyMissing(client: client) }
        // Settle an upload an earlier sync left unknown before applying, so changes that are in
        // fact published are not treated as unpushed by conflict detection.
        try await publisher.settleUnknownUpload()
        try await apply(found.unapplied, into: &report)
        let outgoing = try await preparePush(into: &report)
        // A client's sets have increasing clocks, except a set re-written after its upload was found
        // missing (same changes, same clock, new id): the new set is the newest then; and the set
        // of writes published again after a removal, pushed into an empty directory.
        let newestOwn = outgoing.map { outgoing in
            found.ownNewest.map { $0.clock > outgoing.name.clock ? $0 : outgoing.name } ?? outgoing.name
        } ?? found.ownNewest
        let marker = RecentSyncName(
            clientID: clientID, date: Date(),
            newestSet: format.announcesNewestSets ? newestOwn.map { .set($0) } ?? .nothingPushed : .unannounced
        )
        if outgoing == nil, let recentSyncs, keepsMarker(announcing: marker.newestSet, listed: recentSyncs, found: found.mode, at: marker.date) {
            logger.debug("last-sync marker kept", metadata: ["marker": "\(recentSyncMarkers[0])"])
            return .completed
        }
        do {
            try await writeMarker(marker, appliedThrough: try await appliedThrough(found.known))
        } catch {
            // Without the marker, readers of format 2 may not look for the set: keep it local.
            guard let outgoing else {
                report.warnings.append(.lastSyncNotRecorded(reason: "\(error)"))
                return .completed
            }
            publisher.discard(outgoing)
            throw error
        }
        if let outgoing {
            do {
                let published = try await publisher.publish(outgoing) { bytes in
                    progress(SyncProgress(phase: .pushing, itemsTotal: 1, bytesTotal: bytes))
                }
                progress(SyncProgress(phase: .pushing, itemsDone: 1, itemsTotal: 1, bytesDone: published.byteCount, bytesTotal: published.byteCount))
                logger.debug("pushed change set", metadata: [
                    "set": "\(published.name.fileName)", "changes": "\(published.changeCount)", "bytes": "\(published.byteCount)",
                ])
                report.pushedChanges = published.changeCount
                report.pushedSetName = published.name.fileName
            } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
                // The client's directory vanished since it was last listed: it was removed.
                logger.notice("change-set directory missing at push", metadata: ["set": "\(outgoing.name.fileName)"])
                return .registrationLost
            }
        }
        await deletePreviousMarkers(keeping: marker, into: &report)
        return .completed
    }

    /// Downloads sets in order, up to ``downloadsAhead`` at a time, and applies each in order as
    /// soon as it is there, so network latency overlaps with applying.
    private func apply(_ sets: [RemoteSet], into report: inout SyncReport) async throws {
        let totalBytes = sets.reduce(0) { $0 + $1.size }
        var bytesDone: Int64 = 0
        var heldBack: Set<SyncIdentifier> = []
        /// Reports `set` as unreadable and holds back its client's later sets.
        func holdBackUnreadable(_ set: RemoteSet, reason: String) {
            report.warnings.append(.unreadableChangeSet(fileName: set.name.fileName, fromClient: set.client, reason: reason))
            logger.warning("change set held back: unreadable", metadata: [
                "set": "\(set.name.fileName)", "client": "\(set.client)", "reason": "\(reason)",
            ])
            heldBack.insert(set.client)
        }
        try await withThrowingTaskGroup(of: (Int, Fetched).self) { group in
            var started = 0
            var fetched: [Int: Fetched] = [:]
            func startNext() {
                guard started < sets.count else { return }
                let index = started
                started += 1
                group.addTask { (index, try await fetch(sets[index])) }
            }
            do {
                for _ in 0..<Self.downloadsAhead {
                    startNext()
                }
                for (index, set) in sets.enumerated() {
                    progress(
                        SyncProgress(
                            phase: .downloading, itemsDone: index, itemsTotal: sets.count, bytesDone: bytesDone, bytesTotal: totalBytes
                        )
                    )
                    while fetched[index] == nil, let (done, result) = try await group.next() {
                        fetched[done] = result
                        startNext()
                    }
                    switch fetched.removeValue(forKey: index) {
                    case .ready(let file, let contents)? where !heldBack.contains(set.client):
                        defer { file.remove() }
                        bytesDone += set.size
                        progress(
                            SyncProgress(
                                phase: .applying, itemsDone: index, itemsTotal: sets.count, bytesDone: bytesDone, bytesTotal: totalBytes
                            )
                        )
                        do {
                            // The resolver and the report see the clients the app chose, not only database ids.
                            let (own, writer, appResolver) = (clientID, set.client, resolver)
                            let resolver = ConflictResolver { try appResolver.resolve($0.between(local: own, remote: writer)) }
                            // While sets are held back, an update of a row never seen here waits
                            // with them: the row's creation may be in one of them.
                            let holding = !heldBack.isEmpty
                            var applied = try await local {
                                try localStore.applyChangeSet(at: file.url, verified: contents, resolver: resolver, holdingUpdatesOfUnseenRows: holding)
                            }
                            applied.conflicts = applied.conflicts.map { .init(conflict: $0.conflict.between(local: own, remote: writer), resolution: $0.resolution) }
                            record(applied, from: set.client, into: &report)
                        } catch let error as SyncError where error.underlying is UpdateOfUnseenRow {
                            report.warnings.append(
                                .waitsForHeldBackSets(fileName: set.name.fileName, fromClient: set.client, reason: error.underlying.map { "\($0)" } ?? "")
                            )
                            logger.notice("change set held back: it changes a row a held-back set may create", metadata: [
                                "set": "\(set.name.fileName)", "client": "\(set.client)",
                            ])
                            heldBack.insert(set.client)
                        } catch let error as SyncError where error.underlying is ChangeSetFormatError {
                            // Damage only the apply can see (a composite key that is not one): the
                            // apply rolled back; the set is held back like one that cannot be read.
                            holdBackUnreadable(set, reason: error.underlying.map { "\($0)" } ?? "")
                        } catch let error as SyncError {
                            guard let (table, column) = (error.underlying as? LocalStoreError)?.newerSchema else { throw error }
                            report.warnings.append(
                                .upgradeRequired(table: table, column: column, fromClient: set.client, fileName: set.name.fileName)
                            )
                            logger.warning("change set held back: it needs a newer schema", metadata: [
                                "set": "\(set.name.fileName)", "client": "\(set.client)", "table": "\(table)", "column": "\(column ?? "(table)")",
                            ])
                            heldBack.insert(set.client)
                        }
                    case .ready(let file, _)?:
                        file.remove()
                    case .unreadable(let reason)? where !heldBack.contains(set.client):
                        holdBackUnreadable(set, reason: reason)
                    case .unreadable?, nil:
                        break
                    }
                }
                if includeOwnSets && !heldBack.contains(clientID) {
                    try await local { try state.setNeedsOwnSets(false) }
                }
            } catch {
                group.cancelAll()
                for case .ready(let file, _) in fetched.values {
                    file.remove()
                }
                while !group.isEmpty {
                    if case .ready(let file, _)? = try? await group.next()?.1 {
                        file.remove()
                    }
                }
                throw error
            }
        }
    }

    /// How many change sets are downloaded ahead of the one being applied.
    static let downloadsAhead = 4

    /// A downloaded set, or why it cannot be used.
    private enum Fetched: Sendable {
        /// The set, with what verifying it found.
        case ready(LocalScratchFile, ChangeSetReader.VerifiedContents)
        case unreadable(String)
    }

    /// Downloads and verifies one set into a scratch file; the caller removes the file.
    private func fetch(_ set: RemoteSet) async throws -> Fetched {
        let scratch = try LocalScratchFile()
        do {
            return .ready(scratch, try await ChangeSetFetcher(remote: remote, layout: layout).fetch(set.name, of: set.client, to: scratch.url))
        } catch let problem as ChangeSetFetcher.Unreadable {
            scratch.remove()
            return .unreadable(problem.reason)
        } catch {
            scratch.remove()
            throw error
        }
    }

    private func record(_ applied: ApplyReport, from client: SyncIdentifier, into report: inout SyncReport) {
        logger.debug("applied change set", metadata: [
            "set": "\(applied.setID)", "client": "\(client)", "inserted": "\(applied.insertedRows)", "updated": "\(applied.updatedRows)",
            "deleted": "\(applied.deletedRows)", "stale": "\(applied.staleValuesIgnored)", "alreadyApplied": "\(applied.wasAlreadyApplied)",
        ])
        for decided in applied.conflicts {
            logger.debug("conflict decided", metadata: [
                "table": "\(decided.conflict.table)", "column": "\(decided.conflict.column)", "resolution": "\(decided.resolution.logText)",
            ])
        }
        for warning in applied.warnings {
            logger.notice("rule applied", metadata: ["client": "\(client)", "warning": "\(warning.logText)"])
        }
        report.applyReports.append(applied)
        if !applied.wasAlreadyApplied {
            report.appliedSets += 1
            report.appliedChanges += applied.insertedRows + applied.updatedRows + applied.deletedRows
        }
        report.conflicts += applied.conflicts
        report.warnings += applied.warnings.map { .apply($0, fromClient: client) }
    }

    /// Settles references of pending deletions, reports rows that stay local, then has the
    /// publisher write the pending changes as a new set recorded as outgoing (before any upload);
    /// `nil` if there is nothing to push.
    private func preparePush(into report: inout SyncReport) async throws -> ChangeSetPublisher.Prepared? {
        let settled = try await local { try localStore.settleReferencesOfPendingChanges() }
        for warning in settled {
            logger.notice("rule applied before the push", metadata: ["warning": "\(warning.logText)"])
        }
        report.warnings += settled.map { .settledLocally($0) }
        for (table, count) in try await local({ try localStore.rowsWithoutKey() }) {
            logger.warning("rows without a key stay local", metadata: ["table": "\(table)", "rows": "\(count)"])
            report.warnings.append(.rowsWithoutKey(table: table, count: count))
        }
        return try await publisher.prepare()
    }

    /// Whether a sync that pushes nothing may leave this client's marker as it is: the sets were
    /// found by its announcements (`mode` ``ChangeSetDiscovery/Mode/announced``: not the first
    /// pass after a registration or a whole-store install, which replaced what is applied here),
    /// the marker is the only one this client has left (none to delete), it is `listed` (not lost
    /// to a failed upload or deleted behind this client's back), it announces `newestSet` already
    /// (format 2), and it was written less than ``lastSyncRecordInterval`` before `now`. A marker
    /// dated after `now` (the clock went back) is rewritten, so the times other clients see stay
    /// this clock's.
    ///
    /// What a kept marker lags behind on: the time of this client's last sync (others see it at
    /// most the interval late) and what it applied since (its record's `appliedThrough`, which
    /// vacuum reads: the sets this client applied are removed at most the interval later). Neither
    /// decides what any client fetches, so nothing is missed.
    private func keepsMarker(
        announcing newestSet: RecentSyncName.NewestSet, listed: [RemoteItem], found mode: ChangeSetDiscovery.Mode, at now: Date
    ) -> Bool {
        guard mode == .announced, newestSet != .unannounced, recentSyncMarkers.count == 1,
            let current = RecentSyncName(fileName: recentSyncMarkers[0]),
            current.clientID == clientID, current.newestSet == newestSet,
            listed.contains(where: { !$0.isDirectory && $0.name == current.fileName })
        else { return false }
        let age = now.timeIntervalSince(current.date)
        return age >= 0 && age < lastSyncRecordInterval.timeInterval
    }

    /// For each other client, the newest of its known sets that is applied here.
    private func appliedThrough(_ known: [SyncIdentifier: [ChangeSetName]]) async throws -> [String: String] {
        let applied = Set(try await local { try localStore.appliedSetIDs() })
        var result: [String: String] = [:]
        for (client, names) in known where client != clientID {
            if let newest = names.last(where: { applied.contains($0.id) }) {
                result[client.rawValue] = newest.fileName
            }
        }
        return result
    }

    /// Writes the new last-sync marker. Its name is recorded before the upload, so a marker
    /// whose upload outcome is unknown is deleted by a later sync.
    private func writeMarker(_ name: RecentSyncName, appliedThrough: [String: String]) async throws {
        progress(SyncProgress(phase: .recording))
        let previous = recentSyncMarkers.filter { $0 != name.fileName }
        try await local { try state.setRecentSyncMarkers(previous + [name.fileName]) }
        let record = RecentSyncRecord(clientID: clientID, syncedAt: name.date, appliedThrough: appliedThrough)
        try await remote.writeJSON(record, to: layout.recentSync(name))
    }

    /// Deletes this client's previous markers, forgetting each name once it is deleted, so a
    /// failure leaves no marker behind for good. A failure does not fail the sync (the data is
    /// synced); it is reported as a warning.
    private func deletePreviousMarkers(keeping current: RecentSyncName, into report: inout SyncReport) async {
        var markers = recentSyncMarkers.filter { $0 != current.fileName }
        do {
            while let previous = markers.first {
                if let old = RecentSyncName(fileName: previous) {
                    try await remote.delete(layout.recentSync(old))
                }
                markers.removeFirst()
                let remaining = markers + [current.fileName]
                try await local { try state.setRecentSyncMarkers(remaining) }
            }
        } catch {
            report.warnings.append(.lastSyncNotRecorded(reason: "\(error)"))
        }
    }

    /// Runs a local database call off the cooperative pool, wrapping its errors in
    /// ``SyncError/Code/local`` (``LocalStore/performForSync(_:)``).
    private func local<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await localStore.performForSync(body)
    }

    /// Writes, records and uploads this client's sets.
    private var publisher: ChangeSetPublisher {
        ChangeSetPublisher(remote: remote, layout: layout, format: format, clientID: clientID, localStore: localStore, state: state)
    }
}
