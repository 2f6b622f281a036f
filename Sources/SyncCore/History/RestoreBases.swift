import Foundation
import RemoteProtocol

/// Where a point-in-time restore of one document can start: the whole stores that hold every
/// change set whose file is gone, and whether the document can be replayed from its first set.
///
/// History leaves the directories in three ways, and a restore must not silently miss any:
/// - a vacuum removes a client's older sets (its marker names the newest one removed);
/// - a client removal deletes the client's directory with its sets (no marker);
/// - a document recreated from a database that synced before carries its old rows only in the
///   whole store uploaded after its first sync.
///
/// So a unit can be a restore's base only if it contains the set every vacuum marker names and
/// every set some whole store contains that no directory lists any more, and was written after
/// every client removal the document's `DeletedClients/` records; and a replay from the
/// beginning is possible only if none of these exists. (A removed client that registers again
/// deletes its tombstone: what it took with it is then known only from whole-store indexes.) (Rows that were in a table before it was
/// registered travel only in whole stores, which nothing names: a replay from the beginning shows
/// the document as its change sets made it.)
struct RestoreBases: Sendable {
    /// A complete unit of the current incarnation, with the ids of the sets it contains.
    struct Base: Sendable {
        var unit: WholeStoreCatalog.Unit
        var contained: Set<String>
    }

    /// The units a restore can start from, oldest first.
    var usable: [Base] = []
    /// Ids of sets some whole store contains that no directory lists (vacuumed or removed).
    var unlistedSetIDs: Set<String> = []
    /// Whether the document can be replayed from its first change set.
    var canReplayFromBeginning = true

    /// Reads the manifest and index of every complete unit in `listing` (two small downloads
    /// each); units deleted meanwhile are skipped.
    static func read(_ listing: DocumentHistoryListing, remote: CodedRemote, layout: DocumentLayout) async throws -> RestoreBases {
        let catalog = WholeStoreCatalog(remote: remote, layout: layout)
        var candidates: [Base] = []
        for unit in listing.units where unit.isComplete {
            do {
                guard try await catalog.manifest(of: unit).integrityKey == listing.integrityKey else { continue }
                candidates.append(Base(unit: unit, contained: Set(try await catalog.index(of: unit).appliedSetIDs)))
            } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
                continue
            } catch let error as SyncError where error.code == .corruptRemoteData || error.code == .unsupportedFormat {
                continue  // a damaged unit, or one of a newer format, is no base; verify reports it
            }
        }
        let listed = Set(listing.sets.map(\.name.id))
        var bases = RestoreBases()
        bases.unlistedSetIDs = candidates.reduce(into: Set<String>()) { $0.formUnion($1.contained) }.subtracting(listed)
        if !bases.unlistedSetIDs.isEmpty {
            // A set pushed after the directories were listed may already be in a whole store
            // listed later: a set is gone only if a second listing lacks it too.
            bases.unlistedSetIDs.subtract(try await DocumentHistoryListing.listedSetIDs(remote: remote, layout: layout))
        }
        let vacuumed = Set(listing.newestVacuumed.values.map(\.id))
        // A removed client's sets went with it, and only whole stores written after its removal
        // are sure to hold what others had applied of them (by the server's time of its
        // tombstone, when the store reports it).
        let removals = listing.removedClients.compactMap(\.modificationDate)
        let removedAfter = removals.count == listing.removedClients.count ? removals.max() : nil
        bases.usable = candidates.filter { base in
            vacuumed.isSubset(of: base.contained) && bases.unlistedSetIDs.isSubset(of: base.contained)
                && removedAfter.map { base.unit.name.date >= $0 } ?? true
        }
        bases.canReplayFromBeginning = vacuumed.isEmpty && bases.unlistedSetIDs.isEmpty && listing.removedClients.isEmpty
        return bases
    }

    /// The moments a restore can reach, up to the newest set of `listing`.
    func range(in listing: DocumentHistoryListing) -> RestorableRange {
        RestorableRange(
            isRestorable: canReplayFromBeginning || !usable.isEmpty,
            earliest: canReplayFromBeginning ? nil : usable.map(\.unit.name.date).min(),
            latest: listing.sets.last.map { $0.name.clock.date }
        )
    }
}
