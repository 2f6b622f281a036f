import Foundation
import GRDB
import RemoteProtocol

/// A moment of a document's history to restore (see
/// ``ApplicationSyncManager/restore(document:to:at:schemaFrom:progress:)``).
///
/// Change sets are the units of history: a set is in the restored state whole or not at all.
public struct RestorePoint: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case at(Date)
        case beforeSet(String)
    }

    let kind: Kind

    /// The document as it was at `date`: every change set whose newest change is at or before it
    /// (to the millisecond), and none after.
    public static func at(_ date: Date) -> RestorePoint { RestorePoint(kind: .at(date)) }

    /// The document just before the change set `id`: every set that comes before it in the
    /// order clients apply sets (clock, then id), and neither it nor any later one.
    public static func beforeChangeSet(_ id: String) -> RestorePoint { RestorePoint(kind: .beforeSet(id)) }

    public var description: String {
        switch kind {
        case .at(let date): "at \(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))"
        case .beforeSet(let id): "before change set \(id)"
        }
    }
}

/// What a point-in-time restore did.
public struct RestoreReport: Sendable, Equatable, Codable {
    /// The whole store the restore started from (`WholeStore/<client>/<unit>`), or `nil` when it
    /// replayed the document from its first change set.
    public var base: String?
    /// How many change sets it applied on top of the base.
    public var appliedSets = 0
    /// How many row changes those sets held.
    public var appliedChanges = 0
    /// Rows the data rules removed while the sets were replayed that no change set deleted, put
    /// back (see ``LocalStore``'s reinstatement): the replay applies sets in clock order, which no
    /// client may have done, so a collision or a missing parent it met may never have happened.
    public var reinstatedRows = 0
    /// The file name of the newest change set in the restored state, `nil` if there is none.
    public var newestSet: String?
    /// The time of that set's newest change.
    public var newestSetTime: Date?
}

/// Rebuilds a remote document as it was at a ``RestorePoint`` into a new database file.
///
/// 1. **Base**: the newest usable whole store (see ``RestoreBases``: complete, current integrity
///    key, holding every set whose file is gone; verified as a download is) taken no later than
///    the point; if there is none and no history left the directories, an empty database with
///    the schema of `schemaSource` (the application's database) or else of the newest usable
///    whole store. If history the point needs is gone, the restore is refused with the earliest
///    restorable moment. A base older than a schema migration first gains the tables and columns
///    of `schemaSource` it lacks.
/// 2. **Replay**: every change set the point includes that the base does not contain, in the
///    order clients apply them, each verified and applied as a sync applies it (last writer wins
///    per cell, the same data rules), so the result is the state any client holds once it has
///    applied exactly those sets. A row the rules removed during the replay that no set deletes is
///    put back afterwards: every client that removed a row by a rule pushed the deletion, so a
///    removal without one comes from the replay's order, not from the history. What the rules
///    change during the replay (a reference cleared) takes the clock of its place in the history,
///    just after the set that caused it, never the time of the restore, so later writes of the
///    same cell still win. That is a cut by clock: a set an offline client pushes later
///    with older clocks joins the moments it was made at, though nobody had it then.
/// 3. **Publish**: the file is made an unbound database (a fresh RollingSync client id, no change
///    log, no registration, as ``ApplicationSyncManager/downloadWholeStore(of:from:to:configuration:)`` leaves
///    it) and renamed to the destination, which it never overwrites. On any failure nothing is
///    left at the destination.
struct PointInTimeRestore: Sendable {
    let application: ApplicationRegistration
    let documentID: SyncIdentifier
    let point: RestorePoint
    let destination: URL
    let schemaSource: LocalStore?
    let progress: @Sendable (SyncProgress) -> Void

    private var layout: DocumentLayout { application.layout.document(documentID) }
    /// What the restored file is opened and checked with: the configuration of `schemaSource`,
    /// the application's database, for its collations and functions (see ``SchemaFile``).
    private var configuration: Configuration { schemaSource?.applicationConfiguration ?? Configuration() }

    func run() async throws -> RestoreReport {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw SyncError(.local, "\(destination.path) exists already; choose a new file for the restored database")
        }
        // A whole store replaced or a set vacuumed while the restore read them: start again from
        // a fresh listing (twice at most).
        for attempt in 1... {
            do {
                return try await attemptRestore()
            } catch let error as GoneMeanwhile where attempt < 3 {
                _ = error
                continue
            } catch let error as GoneMeanwhile {
                throw error.failure
            }
        }
        fatalError("unreachable")
    }

    /// A file the restore needed disappeared after it was listed (a concurrent whole-store upload
    /// or vacuum).
    private struct GoneMeanwhile: Error {
        var failure: SyncError
    }

    private func attemptRestore() async throws -> RestoreReport {
        progress(SyncProgress(phase: .listing))
        let listing = try await DocumentHistoryListing.read(remote: application.remote, layout: layout, format: application.format)
        guard let integrityKey = listing.integrityKey else {
            throw SyncError(.notFound, "document \(documentID) does not exist in application \(application.applicationID)")
        }
        let (includes, includesUnit) = try bounds(in: listing)
        let working = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).restoring-\(UUID().uuidString)")
        defer { Self.removeDatabaseFiles(at: working) }
        let downloader = WholeStoreDownloader(
            remote: application.remote, layout: layout, integrityKey: integrityKey, progress: progress, configuration: configuration
        )
        let bases = try await RestoreBases.read(listing, remote: application.remote, layout: layout)
        let accepted = Set(bases.usable.map(\.unit).filter { includesUnit($0.name) }.map { "\($0.client)/\($0.name)" })
        var report = RestoreReport()
        let base: WholeStoreCatalog.Unit?
        do {
            base = try await downloader.withNewestUsable(from: nil, accepting: { accepted.contains("\($0.client)/\($0.name)") }) { unit, url in
                try Self.local { try FileManager.default.copyItem(at: url, to: working) }
                return unit
            }
        } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
            throw GoneMeanwhile(failure: error)
        }
        if let base {
            report.base = layout.wholeStoreUnit(base.name, of: base.client).string
        } else {
            guard bases.canReplayFromBeginning else { throw historyRemoved(bases.range(in: listing)) }
            try await writeEmptyDatabase(at: working, downloader: downloader)
        }
        let database = try Self.local { try SchemaFile.open(working, configuration: configuration) }
        do {
            let store = try Self.local { try LocalStore(writer: database) }
            if base != nil, let schemaSource {
                // A whole store older than a schema migration: the sets after it need the new columns.
                _ = try Self.local { try store.adoptMissingSchema(of: schemaSource.writer) }
            }
            let applied = Set(try Self.local { try store.appliedSetIDs() })
            let included = listing.sets.filter { includes($0.name) }
            let missing = included.filter { !applied.contains($0.name.id) }
            let watermark = try Self.local { try store.removedRowsWatermark() }
            try await replay(missing, into: store, report: &report)
            report.reinstatedRows = try Self.local { try store.reinstateRowsRemovedByRules(after: watermark) }
            report.newestSet = included.last?.name.fileName
            report.newestSetTime = included.last?.name.clock.date
            try database.close()
        } catch {
            try? database.close()
            throw error
        }
        try Self.local {
            try LocalStore.adoptSnapshot(at: working)
            try LocalSyncState.removeBinding(ofDatabaseAt: working)
            try FileManager.default.moveItem(at: working, to: destination)
        }
        progress(SyncProgress(phase: .finished))
        return report
    }

    /// Which sets and whole-store units the point includes.
    private func bounds(in listing: DocumentHistoryListing) throws -> (
        sets: @Sendable (ChangeSetName) -> Bool, units: @Sendable (WholeStoreUnitName) -> Bool
    ) {
        switch point.kind {
        case .at(let date):
            let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
            return ({ $0.clock.physicalMilliseconds <= milliseconds }, { $0.clock.physicalMilliseconds <= milliseconds })
        case .beforeSet(let id):
            guard let target = listing.sets.first(where: { $0.name.id == id })?.name else {
                throw SyncError(
                    .notFound,
                    "document \(documentID) has no change set \(id) (vacuum may have removed it; `rollsync log` lists the sets there are)"
                )
            }
            // A unit taken before the set's clock holds only sets older than it.
            return ({ $0 < target }, { $0.clock < target.clock })
        }
    }

    /// An empty database with the document's schema, for a replay from the first change set.
    private func writeEmptyDatabase(at url: URL, downloader: WholeStoreDownloader) async throws {
        if let schemaSource {
            let snapshot = url.appendingPathExtension("schema")
            defer { Self.removeDatabaseFiles(at: snapshot) }
            try Self.local {
                try schemaSource.snapshot(to: snapshot)
                try LocalStore.writeEmptyDatabase(withSchemaOf: snapshot, to: url, configuration: configuration)
            }
        } else {
            let copied = try await downloader.withNewestUsable(from: nil) { _, store in
                try Self.local { try LocalStore.writeEmptyDatabase(withSchemaOf: store, to: url, configuration: configuration) }
                return true
            }
            guard copied == true else {
                throw SyncError(
                    .noWholeStore,
                    "document \(documentID) has no whole store to take its schema from; restore from a database of the application instead"
                )
            }
        }
    }

    /// Downloads, verifies and applies `sets` in order.
    private func replay(_ sets: [DocumentHistoryListing.ListedSet], into store: LocalStore, report: inout RestoreReport) async throws {
        let fetcher = ChangeSetFetcher(remote: application.remote, layout: layout)
        for (index, set) in sets.enumerated() {
            progress(SyncProgress(phase: .applying, itemsDone: index, itemsTotal: sets.count))
            let applied: ApplyReport
            do {
                applied = try await fetcher.withFetched(set.name, of: set.client) { url, contents in
                    let applied = try store.applyChangeSet(at: url, verified: contents, resolver: .lastWriterWins)
                    // What the rules did belongs at this point of the history, not at the time
                    // of the restore, or it would win over every later write it meets.
                    try store.stampReplayEffects()
                    return applied
                }
            } catch let unreadable as ChangeSetFetcher.Unreadable {
                let failure = SyncError(
                    .corruptRemoteData,
                    "change set \(set.name.fileName) of \(set.client) cannot be read (\(unreadable.reason)); nothing was restored"
                )
                guard try await application.remote.exists(layout.changeSet(set.name, of: set.client)) != nil else {
                    throw GoneMeanwhile(failure: failure)
                }
                throw failure
            } catch let error as LocalStoreError where error.newerSchema != nil || error.code == .upgradeRequired {
                throw SyncError(
                    .upgradeRequired,
                    "change set \(set.name.fileName) of \(set.client) needs a newer schema than the restore has (\(error)); "
                        + "restore from a database of the application with that schema; nothing was restored",
                    underlying: error
                )
            } catch let error as LocalStoreError {
                throw SyncError(.local, "change set \(set.name.fileName) of \(set.client) could not be applied: \(error)", underlying: error)
            }
            report.appliedSets += 1
            report.appliedChanges += applied.insertedRows + applied.updatedRows + applied.deletedRows
        }
    }

    /// The refusal when history the point needs is gone (vacuumed, or removed with its client),
    /// naming the earliest moment that can be restored.
    private func historyRemoved(_ range: RestorableRange) -> SyncError {
        let earliest = range.earliest.map { "the earliest restorable moment is \($0.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))" }
            ?? "no whole store holds the removed history, so no moment can be restored"
        return SyncError(
            .historyMissing,
            "change sets that restoring document \(documentID) \(point) needs were removed (by a vacuum or with their client); \(earliest)"
        )
    }

    /// Runs a local file or database step, reporting its failure as a local error.
    private static func local<Result>(_ body: () throws -> Result) throws -> Result {
        try SyncError.local("the restored database could not be written", body)
    }

    /// Removes a database file and its journal files, if they exist.
    private static func removeDatabaseFiles(at url: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: url.path + suffix))
        }
    }
}
