import Foundation
import RemoteProtocol

/// Checks one remote document against the rules of the remote format (Docs/RemoteFormat.md) and
/// reports every finding with what and where (problems, and notices for what is harmless or
/// passing, such as an upload in flight); with ``VerificationOptions/repair``, carries out the
/// repairs that are provably safe and nothing else:
///
/// - last-sync markers of clients without a change-set directory (a removed client: the removal
///   deletes exactly these, and a client that syncs again writes a new one);
/// - whole-store units without a manifest whose name and files are older than
///   ``VerificationOptions/leftoverAge`` (readers ignore them; an upload that old is not running
///   any more), listed again just before the deletion;
/// - temporary files of the store's uploads (``RemoteStore/temporaryFiles(in:)``) in the
///   document's directories not written for ``VerificationOptions/leftoverAge``.
///
/// Syncs, uploads and vacuums may run meanwhile: `RecentSyncs/` is listed before and after the
/// change-set directories, and a file that disappears between a listing and its check is
/// skipped, not reported.
struct HistoryVerifier: Sendable {
    let application: ApplicationRegistration
    let documentID: SyncIdentifier
    let options: VerificationOptions
    let progress: @Sendable (SyncProgress) -> Void

    /// The smallest stored size of a change set: magic, version, a header of two one-byte
    /// strings, an empty end record and the CRC. Anything shorter is truncated.
    static let minimumChangeSetSize: Int64 = 18

    private typealias Problem = VerificationReport.Problem

    /// A finding with what a repair would do.
    private struct Finding {
        var problem: Problem
        var repair: Repair?
    }

    /// A provably safe repair.
    private enum Repair {
        case deleteMarker(RemotePath)
        case deleteIncompleteUnit(WholeStoreCatalog.Unit)
        case deleteTemporaryFile(TemporaryFile)
    }

    private var remote: CodedRemote { application.remote }
    private var layout: DocumentLayout { application.layout.document(documentID) }

    func run() async throws -> VerificationReport {
        progress(SyncProgress(phase: .listing))
        let listing = try await DocumentHistoryListing.read(remote: remote, layout: layout, format: application.format)
        guard listing.integrityKey != nil || listing.isComplete || !listing.sets.isEmpty else {
            throw SyncError(.notFound, "document \(documentID) does not exist in application \(application.applicationID)")
        }
        var findings: [Finding] = []
        if !listing.isComplete {
            findings.append(Finding(problem: Problem(
                kind: .incompleteDocument, path: layout.documentInfo.string, detail: "the document's creation did not complete (no documentInfo.json)"
            )))
        }
        for entry in listing.unknown {
            findings.append(Finding(problem: Problem(
                kind: .unknownFile, severity: .notice, path: entry.path.string,
                detail: "the remote format has no \(entry.isDirectory ? "directory" : "file") of this name here; readers ignore it"
            )))
        }
        findings += try await clientProblems(listing).map { Finding(problem: $0) }
        findings += markerFindings(listing)
        if options.deep {
            findings += try await recordProblems(listing).map { Finding(problem: $0) }
        }
        var report = VerificationReport(restorableRange: RestorableRange(isRestorable: false, earliest: nil, latest: nil))
        findings += try await changeSetProblems(listing, into: &report).map { Finding(problem: $0) }
        findings += try await unitFindings(listing, into: &report)
        findings += try await temporaryFileFindings(listing)
        let bases = try await RestoreBases.read(listing, remote: remote, layout: layout)
        findings += historyFindings(listing, bases: bases)
        report.restorableRange = bases.range(in: listing)
        if options.repair {
            for index in findings.indices {
                guard let repair = findings[index].repair else { continue }
                do {
                    findings[index].problem.repaired = try await carryOut(repair)
                } catch {
                    findings[index].problem.detail += " (the repair failed: \(error))"
                }
            }
        }
        report.problems = findings.map(\.problem).sorted { ($0.path, $0.kind.rawValue) < ($1.path, $1.kind.rawValue) }
        return report
    }

    /// Carries out a repair; false if, looked at again, it is no longer due.
    private func carryOut(_ repair: Repair) async throws -> Bool {
        switch repair {
        case .deleteMarker(let path):
            try await remote.delete(path)
        case .deleteIncompleteUnit(let unit):
            // The upload may have finished since the listing: then the unit is complete and stays.
            let files = try await remote.listIfPresent(layout.wholeStoreUnit(unit.name, of: unit.client)) ?? []
            guard !files.contains(where: { $0.name == WholeStoreManifest.manifestFileName }) else { return false }
            try await remote.delete(layout.wholeStoreUnit(unit.name, of: unit.client))
        case .deleteTemporaryFile(let file):
            try await remote.remote { try await remote.store.deleteTemporaryFile(file) }
        }
        return true
    }

    /// Directories of clients the application does not know: their sets would be applied by
    /// every reader.
    private func clientProblems(_ listing: DocumentHistoryListing) async throws -> [Problem] {
        let known = Set((try await remote.listIfPresent(application.layout.clientDevices) ?? []).filter(\.isDirectory).map(\.name))
        var problems: [Problem] = []
        for client in listing.clientDirectories where !known.contains(client.rawValue) {
            problems.append(Problem(
                kind: .unknownClient, path: layout.changeSets(of: client).string, client: client.rawValue,
                detail: "no client \(client) is registered with the application (ClientDevices/), yet readers apply its change sets"
            ))
        }
        for client in Set(listing.units.map(\.client)) where !known.contains(client.rawValue) {
            problems.append(Problem(
                kind: .unknownClient, path: layout.wholeStores(of: client).string, client: client.rawValue,
                detail: "no client \(client) is registered with the application (ClientDevices/)"
            ))
        }
        return problems
    }

    /// Markers of removed clients, and (format 2) what the markers announce.
    private func markerFindings(_ listing: DocumentHistoryListing) -> [Finding] {
        var findings: [Finding] = []
        for item in listing.recentSyncs {
            guard let name = RecentSyncName(fileName: item.name), !listing.clientDirectories.contains(name.clientID) else { continue }
            let safe = listing.hasSyncChangesDirectory
            findings.append(Finding(
                problem: Problem(
                    kind: .staleMarker, path: item.path.string, client: name.clientID.rawValue,
                    detail: "a last-sync marker of \(name.clientID), which has no change-set directory (removed from the document)",
                    isRepairable: safe
                ),
                repair: safe ? .deleteMarker(item.path) : nil
            ))
        }
        guard application.format.announcesNewestSets else { return findings }
        let vacuumed = listing.newestVacuumed
        let announcements = RecentSyncName.newestSetsByClient(in: listing.recentSyncs + listing.recentSyncsAfterSets)
        for (client, newest) in announcements where listing.clientDirectories.contains(client) {
            let sets = listing.sets.filter { $0.client == client }.map(\.name)
            let announced: ChangeSetName?
            switch newest {
            case .unannounced: continue
            case .nothingPushed: announced = nil
            case .set(let name): announced = name
            }
            if let announced, !sets.contains(announced), !(vacuumed[client].map { announced <= $0 } ?? false) {
                findings.append(Finding(problem: Problem(
                    kind: .missingChangeSet, severity: .notice, path: layout.changeSet(announced, of: client).string, client: client.rawValue,
                    detail: "the newest last-sync marker of \(client) names this set, which is not there: its upload is running, or failed "
                        + "and its changes go out in \(client)'s next set (readers list \(client)'s directory until then)"
                )))
            }
            for set in sets where announced.map({ set > $0 }) ?? true {
                findings.append(Finding(problem: Problem(
                    kind: .unannouncedChangeSet, path: layout.changeSet(set, of: client).string, client: client.rawValue,
                    detail: "newer than every set the markers of \(client) announce: other clients will not look for it until \(client) syncs again"
                )))
            }
        }
        return findings
    }

    /// Sets named by the newest last-sync record of each client that exist nowhere.
    private func recordProblems(_ listing: DocumentHistoryListing) async throws -> [Problem] {
        let vacuumed = listing.newestVacuumed
        let listed = Set(listing.sets.map { "\($0.client.rawValue)/\($0.name.fileName)" })
        var problems: [Problem] = []
        for (client, name) in RecentSyncName.newestByClient(in: listing.recentSyncs).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let record: RecentSyncRecord
            do {
                guard let read = try await remote.readJSONIfPresent(RecentSyncRecord.self, from: layout.recentSync(name)) else { continue }
                record = read
            } catch let error as SyncError where error.code == .corruptRemoteData {
                problems.append(Problem(kind: .unknownFile, path: layout.recentSync(name).string, client: client.rawValue, detail: "unreadable last-sync record: \(error.message)"))
                continue
            }
            for (other, fileName) in record.appliedThrough.sorted(by: { $0.key < $1.key }) {
                guard let otherClient = try? SyncIdentifier(other), listing.clientDirectories.contains(otherClient),
                    let set = ChangeSetName(fileName: fileName), !listed.contains("\(other)/\(fileName)"),
                    !(vacuumed[otherClient].map { set <= $0 } ?? false),
                    try await remote.exists(layout.changeSet(set, of: otherClient)) == nil
                else { continue }
                problems.append(Problem(
                    kind: .missingChangeSet, path: layout.changeSet(set, of: otherClient).string, client: other,
                    detail: "\(client)'s last-sync record says it applied this set, which does not exist and was not vacuumed"
                ))
            }
        }
        return problems
    }

    /// Sets too short to be one; with ``VerificationOptions/deep``, every set downloaded and read.
    private func changeSetProblems(_ listing: DocumentHistoryListing, into report: inout VerificationReport) async throws -> [Problem] {
        var problems: [Problem] = []
        let fetcher = ChangeSetFetcher(remote: remote, layout: layout)
        let totalBytes = listing.sets.reduce(Int64(0)) { $0 + ($1.size ?? 0) }
        var bytesDone: Int64 = 0
        for (index, set) in listing.sets.enumerated() {
            let path = layout.changeSet(set.name, of: set.client)
            if let size = set.size, size < Self.minimumChangeSetSize {
                problems.append(Problem(kind: .unreadableChangeSet, path: path.string, client: set.client.rawValue, detail: "truncated: \(size) bytes"))
                continue
            }
            guard options.deep else { continue }
            progress(SyncProgress(phase: .verifying, itemsDone: index, itemsTotal: listing.sets.count, bytesDone: bytesDone, bytesTotal: totalBytes))
            do {
                _ = try await fetcher.withFetched(set.name, of: set.client) { _, _ in }
                report.changeSetsChecked += 1
            } catch let unreadable as ChangeSetFetcher.Unreadable {
                // A set vacuumed (or removed with its client) since the listing is gone, not damaged.
                if try await remote.exists(path) != nil {
                    problems.append(Problem(kind: .unreadableChangeSet, path: path.string, client: set.client.rawValue, detail: unreadable.reason))
                    report.changeSetsChecked += 1
                }
            }
            bytesDone += set.size ?? 0
        }
        return problems
    }

    /// Incomplete, damaged and unusable units.
    private func unitFindings(_ listing: DocumentHistoryListing, into report: inout VerificationReport) async throws -> [Finding] {
        var findings: [Finding] = []
        let catalog = WholeStoreCatalog(remote: remote, layout: layout)
        let vacuumed = listing.newestVacuumed
        for unit in listing.units {
            let path = layout.wholeStoreUnit(unit.name, of: unit.client).string
            guard unit.isComplete else {
                // The unit's clock is its uploader's; the server's times of its files must agree.
                let newest = ([unit.name.date] + unit.files.compactMap(\.modificationDate)).max() ?? unit.name.date
                let age = options.now.timeIntervalSince(newest)
                let isLeftover = age >= options.leftoverAge
                findings.append(Finding(
                    problem: Problem(
                        kind: .incompleteWholeStore, severity: isLeftover ? .problem : .notice, path: path, client: unit.client.rawValue,
                        detail: isLeftover
                            ? "an interrupted upload (no manifest), last written \(Self.describe(age: age)) ago"
                            : "an upload without a manifest yet, last written \(Self.describe(age: age)) ago: probably still running",
                        isRepairable: isLeftover
                    ),
                    repair: isLeftover ? .deleteIncompleteUnit(unit) : nil
                ))
                continue
            }
            do {
                let manifest = try await catalog.manifest(of: unit)
                report.wholeStoresChecked += 1
                guard manifest.integrityKey == listing.integrityKey else {
                    findings.append(Finding(problem: Problem(
                        kind: .unusableWholeStore, severity: .notice, path: path, client: unit.client.rawValue,
                        detail: "it belongs to an earlier incarnation of the document (another integrity key); readers skip it"
                    )))
                    continue
                }
                if let damage = Self.damage(of: unit, manifest: manifest, sizesAreStored: remote.codec.isIdentity) {
                    findings.append(Finding(problem: Problem(kind: .damagedWholeStore, path: path, client: unit.client.rawValue, detail: damage)))
                    continue
                }
                let contained = Set(try await catalog.index(of: unit).appliedSetIDs)
                let lacking = vacuumed.filter { !contained.contains($0.value.id) }.map(\.key.rawValue).sorted()
                guard lacking.isEmpty else {
                    findings.append(Finding(problem: Problem(
                        kind: .unusableWholeStore, severity: .notice, path: path, client: unit.client.rawValue,
                        detail: "it lacks change sets that vacuum removed (of \(lacking.joined(separator: ", "))); readers skip it"
                    )))
                    continue
                }
                if options.deep {
                    progress(SyncProgress(phase: .verifying))
                    let downloader = WholeStoreDownloader(remote: remote, layout: layout, integrityKey: manifest.integrityKey)
                    try await downloader.fetchIfUsable(unit, markers: [:], catalog: catalog)?.remove()
                }
            } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
                // Deleted since the listing (its uploader replaced it, or a vacuum retired it).
                if try await remote.listIfPresent(layout.wholeStoreUnit(unit.name, of: unit.client)) != nil {
                    findings.append(Finding(problem: Problem(kind: .damagedWholeStore, path: path, client: unit.client.rawValue, detail: error.message)))
                }
            } catch let error as SyncError where error.underlying is MissingDefinitionError || error.code == .unsupportedFormat {
                findings.append(Finding(problem: Problem(
                    kind: .uncheckedWholeStore, severity: .notice, path: path, client: unit.client.rawValue, detail: error.message
                )))
            } catch let error as SyncError where error.code == .corruptRemoteData {
                findings.append(Finding(problem: Problem(kind: .damagedWholeStore, path: path, client: unit.client.rawValue, detail: error.message)))
            }
        }
        return findings
    }

    /// The temporary files of uploads in every directory of the document (one extra request per
    /// directory).
    private func temporaryFileFindings(_ listing: DocumentHistoryListing) async throws -> [Finding] {
        var directories = [layout.root] + layout.skeleton(format: application.format)
        directories += listing.clientDirectories.sorted { $0.rawValue < $1.rawValue }.map { layout.changeSets(of: $0) }
        directories += Set(listing.units.map(\.client)).sorted { $0.rawValue < $1.rawValue }.map { layout.wholeStores(of: $0) }
        directories += listing.units.map { layout.wholeStoreUnit($0.name, of: $0.client) }
        var findings: [Finding] = []
        for directory in directories {
            let files: [TemporaryFile]
            do {
                files = try await remote.remote { try await remote.store.temporaryFiles(in: directory) }
            } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
                continue
            }
            for file in files {
                let age = file.modificationDate.map { options.now.timeIntervalSince($0) }
                let isLeftover = age.map { $0 >= options.leftoverAge } ?? false
                findings.append(Finding(
                    problem: Problem(
                        kind: .temporaryFile, severity: isLeftover ? .problem : .notice, path: file.description,
                        detail: (isLeftover ? "left by an interrupted upload" : "a temporary file of an upload, perhaps still running")
                            + (age.map { ", last written \(Self.describe(age: $0)) ago" } ?? " (its age is unknown)"),
                        isRepairable: isLeftover
                    ),
                    repair: isLeftover ? .deleteTemporaryFile(file) : nil
                ))
            }
        }
        return findings
    }

    /// History gone from every directory: vacuumed with no whole store to hold it (a problem), or
    /// held only by whole stores (a notice; it limits restores).
    private func historyFindings(_ listing: DocumentHistoryListing, bases: RestoreBases) -> [Finding] {
        var findings: [Finding] = []
        let vacuumed = listing.newestVacuumed
        if !vacuumed.isEmpty, bases.usable.isEmpty {
            findings.append(Finding(problem: Problem(
                kind: .lostHistory, path: layout.wholeStores.string,
                detail: "vacuum removed change sets of \(vacuumed.keys.map(\.rawValue).sorted().joined(separator: ", ")) and no usable whole store "
                    + "contains them: new clients cannot join"
            )))
        }
        for tombstone in listing.removedClients {
            findings.append(Finding(problem: Problem(
                kind: .historyOnlyInWholeStores, severity: .notice, path: tombstone.path.string,
                detail: "a client removed from the document took its change sets with it; restores start from a whole store written after the removal"
            )))
        }
        if vacuumed.isEmpty, !bases.unlistedSetIDs.isEmpty {
            findings.append(Finding(problem: Problem(
                kind: .historyOnlyInWholeStores, severity: .notice, path: layout.syncChanges.string,
                detail: "\(bases.unlistedSetIDs.count) change sets that whole stores contain are in no directory (removed with their client, "
                    + "or lost); restores start from a whole store that holds them"
            )))
        }
        return findings
    }

    /// What the listing of a complete unit shows wrong: a file of the manifest missing, or (when
    /// files are stored as they are) of another size.
    private static func damage(of unit: WholeStoreCatalog.Unit, manifest: WholeStoreManifest, sizesAreStored: Bool) -> String? {
        for (name, expected) in manifest.files.sorted(by: { $0.key < $1.key }) {
            guard let listed = unit.files.first(where: { $0.name == name && !$0.isDirectory }) else {
                return "\(name) is missing"
            }
            if sizesAreStored, let size = listed.size, size != expected.size {
                return "\(name) is \(size) bytes, its manifest says \(expected.size)"
            }
        }
        return nil
    }

    private static func describe(age: TimeInterval) -> String {
        age >= 86_400 ? "\(Int(age / 86_400)) days" : age >= 3_600 ? "\(Int(age / 3_600)) hours" : "\(max(0, Int(age / 60))) minutes"
    }
}

extension HLCTimestamp {
    /// The wall-clock time of the timestamp, to the millisecond.
    var date: Date { Date(timeIntervalSince1970: TimeInterval(physicalMilliseconds) / 1000) }
}
