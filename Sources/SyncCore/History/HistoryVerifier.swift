import Foundation
import RemoteProtocol

/// Checks one remote document against the rules of the remote format (Docs/RemoteFormat.md) and
/// reports every problem with what and where; with ``VerificationOptions/repair``, carries out
/// the repairs that are provably safe and nothing else:
///
/// - last-sync markers of clients without a change-set directory (a removed client: the removal
///   deletes exactly these, and a client that syncs again writes a new one);
/// - whole-store units without a manifest older than ``VerificationOptions/leftoverAge`` (readers
///   ignore them; an upload that old is not running any more).
///
/// Backends hide their own temporary files (``RemotePath/reservedTemporaryPrefix``) from
/// listings, so they are neither seen nor counted here.
struct HistoryVerifier: Sendable {
    let application: ApplicationRegistration
    let documentID: SyncIdentifier
    let options: VerificationOptions
    let progress: @Sendable (SyncProgress) -> Void

    /// The smallest stored size of a change set: magic, version, a header of two one-byte
    /// strings, an empty end record and the CRC. Anything shorter is truncated.
    static let minimumChangeSetSize: Int64 = 18

    private typealias Problem = VerificationReport.Problem

    private var remote: CodedRemote { application.remote }
    private var layout: DocumentLayout { application.layout.document(documentID) }

    func run() async throws -> VerificationReport {
        progress(SyncProgress(phase: .listing))
        let listing = try await DocumentHistoryListing.read(remote: remote, layout: layout, format: application.format)
        guard listing.integrityKey != nil || listing.isComplete || !listing.sets.isEmpty else {
            throw SyncError(.notFound, "document \(documentID) does not exist in application \(application.applicationID)")
        }
        var problems: [Problem] = []
        if !listing.isComplete {
            problems.append(Problem(kind: .incompleteDocument, path: layout.documentInfo.string, detail: "the document's creation did not complete (no documentInfo.json)"))
        }
        for entry in listing.unknown {
            problems.append(Problem(kind: .unknownFile, path: entry.path.string, detail: "the remote format has no \(entry.isDirectory ? "directory" : "file") of this name here"))
        }
        problems += try await clientProblems(listing)
        problems += markerProblems(listing)
        if options.deep {
            problems += try await recordProblems(listing)
        }
        var report = VerificationReport(restorableRange: RestorableRange(isRestorable: false, earliest: nil, latest: nil))
        problems += try await changeSetProblems(listing, into: &report)
        let units = try await unitProblems(listing, into: &report)
        problems += units.problems
        let vacuumed = listing.newestVacuumed
        if !vacuumed.isEmpty, units.usableDates.isEmpty {
            problems.append(Problem(
                kind: .lostHistory, path: layout.wholeStores.string,
                detail: "vacuum removed change sets of \(vacuumed.keys.map(\.rawValue).sorted().joined(separator: ", ")) and no usable whole store contains them"
            ))
        }
        report.restorableRange = RestorableRange(
            isRestorable: vacuumed.isEmpty || !units.usableDates.isEmpty,
            earliest: vacuumed.isEmpty ? nil : units.usableDates.min(),
            latest: listing.sets.last.map { $0.name.clock.date }
        )
        if options.repair {
            for index in problems.indices where problems[index].isRepairable {
                try await remote.delete(try RemotePath(problems[index].path))
                problems[index].repaired = true
            }
        }
        report.problems = problems.sorted { ($0.path, $0.kind.rawValue) < ($1.path, $1.kind.rawValue) }
        return report
    }

    /// Directories of clients the application does not know.
    private func clientProblems(_ listing: DocumentHistoryListing) async throws -> [Problem] {
        let known = Set((try await remote.listIfPresent(application.layout.clientDevices) ?? []).filter(\.isDirectory).map(\.name))
        var problems: [Problem] = []
        for client in listing.clientDirectories where !known.contains(client.rawValue) {
            problems.append(Problem(
                kind: .unknownClient, path: layout.changeSets(of: client).string, client: client.rawValue,
                detail: "no client \(client) is registered with the application (ClientDevices/)"
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
    private func markerProblems(_ listing: DocumentHistoryListing) -> [Problem] {
        var problems: [Problem] = []
        for item in listing.recentSyncs {
            guard let name = RecentSyncName(fileName: item.name), !listing.clientDirectories.contains(name.clientID) else { continue }
            problems.append(Problem(
                kind: .staleMarker, path: item.path.string, client: name.clientID.rawValue,
                detail: "a last-sync marker of \(name.clientID), which has no change-set directory (removed from the document)",
                isRepairable: true
            ))
        }
        guard application.format.announcesNewestSets else { return problems }
        let vacuumed = listing.newestVacuumed
        for (client, newest) in RecentSyncName.newestSetsByClient(in: listing.recentSyncs) where listing.clientDirectories.contains(client) {
            let sets = listing.sets.filter { $0.client == client }.map(\.name)
            let announced: ChangeSetName?
            switch newest {
            case .unannounced: continue
            case .nothingPushed: announced = nil
            case .set(let name): announced = name
            }
            if let announced, !sets.contains(announced), !(vacuumed[client].map { announced <= $0 } ?? false) {
                problems.append(Problem(
                    kind: .missingChangeSet, path: layout.changeSet(announced, of: client).string, client: client.rawValue,
                    detail: "the last-sync marker of \(client) names this set, which does not exist (or its upload is still running)"
                ))
            }
            for set in sets where announced.map({ set > $0 }) ?? true {
                problems.append(Problem(
                    kind: .unannouncedChangeSet, path: layout.changeSet(set, of: client).string, client: client.rawValue,
                    detail: "newer than every set the markers of \(client) announce: other clients will not look for it until \(client) syncs again"
                ))
            }
        }
        return problems
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
                    !(vacuumed[otherClient].map { set <= $0 } ?? false)
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
            let path = layout.changeSet(set.name, of: set.client).string
            if let size = set.size, size < Self.minimumChangeSetSize {
                problems.append(Problem(kind: .unreadableChangeSet, path: path, client: set.client.rawValue, detail: "truncated: \(size) bytes"))
                continue
            }
            guard options.deep else { continue }
            progress(SyncProgress(phase: .verifying, itemsDone: index, itemsTotal: listing.sets.count, bytesDone: bytesDone, bytesTotal: totalBytes))
            do {
                _ = try await fetcher.withFetched(set.name, of: set.client) { _, _ in }
            } catch let unreadable as ChangeSetFetcher.Unreadable {
                problems.append(Problem(kind: .unreadableChangeSet, path: path, client: set.client.rawValue, detail: unreadable.reason))
            }
            bytesDone += set.size ?? 0
            report.changeSetsChecked += 1
        }
        return problems
    }

    /// Incomplete, damaged and unusable units, and the dates of the usable ones.
    private func unitProblems(
        _ listing: DocumentHistoryListing, into report: inout VerificationReport
    ) async throws -> (problems: [Problem], usableDates: [Date]) {
        var problems: [Problem] = []
        var usableDates: [Date] = []
        let catalog = WholeStoreCatalog(remote: remote, layout: layout)
        let vacuumed = listing.newestVacuumed
        for unit in listing.units {
            let path = layout.wholeStoreUnit(unit.name, of: unit.client).string
            guard unit.isComplete else {
                let age = options.now.timeIntervalSince(unit.name.date)
                problems.append(Problem(
                    kind: .incompleteWholeStore, path: path, client: unit.client.rawValue,
                    detail: "an interrupted upload (no manifest), \(Self.describe(age: age)) old",
                    isRepairable: age >= options.leftoverAge
                ))
                continue
            }
            report.wholeStoresChecked += 1
            do {
                let manifest = try await catalog.manifest(of: unit)
                guard manifest.integrityKey == listing.integrityKey else {
                    problems.append(Problem(kind: .unusableWholeStore, path: path, client: unit.client.rawValue, detail: "it belongs to an earlier incarnation of the document (another integrity key)"))
                    continue
                }
                if let damage = Self.damage(of: unit, manifest: manifest, sizesAreStored: remote.codec.isIdentity) {
                    problems.append(Problem(kind: .damagedWholeStore, path: path, client: unit.client.rawValue, detail: damage))
                    continue
                }
                let contained = Set(try await catalog.index(of: unit).appliedSetIDs)
                let lacking = vacuumed.filter { !contained.contains($0.value.id) }.map(\.key.rawValue).sorted()
                guard lacking.isEmpty else {
                    problems.append(Problem(
                        kind: .unusableWholeStore, path: path, client: unit.client.rawValue,
                        detail: "it lacks change sets that vacuum removed (of \(lacking.joined(separator: ", "))); readers skip it"
                    ))
                    continue
                }
                if options.deep {
                    progress(SyncProgress(phase: .verifying))
                    let downloader = WholeStoreDownloader(remote: remote, layout: layout, integrityKey: manifest.integrityKey)
                    try await downloader.fetchIfUsable(unit, markers: [:], catalog: catalog)?.remove()
                }
                usableDates.append(unit.name.date)
            } catch let error as SyncError where error.code == .corruptRemoteData {
                problems.append(Problem(kind: .damagedWholeStore, path: path, client: unit.client.rawValue, detail: error.message))
            }
        }
        return (problems, usableDates)
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
