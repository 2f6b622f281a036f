import GRDB
import Testing

@testable import SyncCore

/// Properties of the merge kernel (``RowMerge``, ``PendingRow``), without SQLite, over random
/// writes: small value, clock and database-id ranges, so that equal values, equal clocks and
/// clock ties between databases all occur often.
struct RowMergeTests {
    private struct Writes: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        mutating func write(databaseID: String) -> CellWrite {
            let value: DatabaseValue = Bool.random(using: &self) ? "v\(Int.random(in: 0..<3, using: &self))".databaseValue : .null
            return CellWrite(value: value, clock: HLCTimestamp(rawValue: UInt64.random(in: 1...4, using: &self)), databaseID: databaseID)
        }
    }

    /// Resolvers of every kind the kernel must handle: the default, two that ignore the clocks,
    /// and one that merges.
    private static let resolvers: [(String, ConflictResolver)] = [
        ("last writer", .lastWriterWins),
        ("local", ConflictResolver { _ in .local }),
        ("remote", ConflictResolver { _ in .remote }),
        ("merged", ConflictResolver { conflict in .merged("\(conflict.localValue)|\(conflict.remoteValue)".databaseValue) }),
    ]

    /// The value a cell holds after the verdict, in a table that held `held`'s write.
    private func outcome(_ verdict: RowMerge.CellVerdict, local: CellWrite, remote: CellWrite, held: RowMerge.Holder) -> DatabaseValue {
        verdict.write ?? (held == .local ? local.value : remote.value)
    }

    private func merge(_ local: CellWrite, _ remote: CellWrite, held: RowMerge.Holder, _ resolver: ConflictResolver) throws -> RowMerge.CellVerdict {
        try RowMerge.mergeCell(local: local, remote: remote, held: held, table: "t", key: 1.databaseValue, column: "c", resolver: resolver)
    }

    /// The apply (the table holds the local write) and the re-base (it holds the remote one)
    /// decide alike: same value, same fate of the pending edit, same re-publication, same report.
    @Test(arguments: resolvers.indices)
    func applyAndRebaseDecideAlike(_ resolverIndex: Int) throws {
        let resolver = Self.resolvers[resolverIndex].1
        var writes = Writes(state: 29)
        for _ in 0..<2_000 {
            let local = writes.write(databaseID: "A")
            let remote = writes.write(databaseID: Bool.random(using: &writes) ? "B" : "A0")
            let applied = try merge(local, remote, held: .local, resolver)
            let rebased = try merge(local, remote, held: .remote, resolver)
            #expect(outcome(applied, local: local, remote: remote, held: .local) == outcome(rebased, local: local, remote: remote, held: .remote))
            #expect(applied.dropsPendingEdit == rebased.dropsPendingEdit)
            #expect(applied.republishes == rebased.republishes)
            #expect(applied.reported == rebased.reported)
            #expect(applied.write == nil || applied.write != local.value || applied.reported?.resolution != .local)
        }
    }

    /// Two clients each holding their own pending write of one cell receive each other's: under
    /// last writer wins both end with the later write, its owner keeps it pending and the other
    /// drops its edit; nothing is re-published.
    @Test func twoOrdersConvergeUnderLastWriterWins() throws {
        var writes = Writes(state: 7)
        for _ in 0..<2_000 {
            let x = writes.write(databaseID: "X")
            let y = writes.write(databaseID: "Y")
            let atX = try merge(x, y, held: .local, .lastWriterWins)
            let atY = try merge(y, x, held: .local, .lastWriterWins)
            let later = LastWriterWins.isNewer(x.clock, x.databaseID, than: y.clock, y.databaseID) ? x : y
            #expect(outcome(atX, local: x, remote: y, held: .local) == later.value)
            #expect(outcome(atY, local: y, remote: x, held: .local) == later.value)
            #expect(atX.dropsPendingEdit == (later == y) && atY.dropsPendingEdit == (later == x))
            #expect(!atX.republishes && !atY.republishes)
        }
    }

    /// A decision against the later write is re-published, so that it reaches every client; a
    /// decision for the later write never is.
    @Test(arguments: resolvers.indices)
    func decisionsAgainstTheLaterWriteAreRepublished(_ resolverIndex: Int) throws {
        let resolver = Self.resolvers[resolverIndex].1
        var writes = Writes(state: 11)
        for _ in 0..<2_000 {
            let local = writes.write(databaseID: "L")
            let remote = writes.write(databaseID: "R")
            let verdict = try merge(local, remote, held: .local, resolver)
            let value = outcome(verdict, local: local, remote: remote, held: .local)
            let later = LastWriterWins.isNewer(remote.clock, remote.databaseID, than: local.clock, local.databaseID) ? remote : local
            let merged = verdict.reported.map { if case .merged = $0.resolution { true } else { false } } ?? false
            #expect(verdict.republishes == (merged || value != later.value))
            #expect(verdict.takesRemoteClock == (!merged && later == remote && value == remote.value))
            #expect(verdict.dropsPendingEdit == verdict.takesRemoteClock)
        }
    }

    /// A write taken is stale when it arrives again (a set applied twice changes nothing), an older
    /// write is stale, a newer one is not.
    @Test func repeatedAndOlderWritesAreStale() {
        var writes = Writes(state: 3)
        for _ in 0..<2_000 {
            let stored = writes.write(databaseID: "S")
            let incoming = writes.write(databaseID: Bool.random(using: &writes) ? "I" : "R")
            let current = (stored.clock, stored.databaseID)
            #expect(RowMerge.isStale(current, against: current))
            let newer = LastWriterWins.isNewer(incoming.clock, incoming.databaseID, than: stored.clock, stored.databaseID)
            #expect(RowMerge.isStale((incoming.clock, incoming.databaseID), against: current) == !newer)
            #expect(!RowMerge.isStale((incoming.clock, incoming.databaseID), against: nil))
        }
    }

    /// The cell's current write is the later of its own record and its row's creation.
    @Test func theCurrentWriteIsTheLaterRecord() {
        let older = (clock: HLCTimestamp(rawValue: 1), databaseID: "B")
        let newer = (clock: HLCTimestamp(rawValue: 2), databaseID: "A")
        #expect(RowMerge.currentWrite(cell: older, row: newer)?.clock == newer.clock)
        #expect(RowMerge.currentWrite(cell: newer, row: older)?.clock == newer.clock)
        #expect(RowMerge.currentWrite(cell: nil, row: older)?.clock == older.clock)
        #expect(RowMerge.currentWrite(cell: (HLCTimestamp(rawValue: 2), "B"), row: newer)?.databaseID == "B")
        #expect(RowMerge.currentWrite(cell: nil, row: nil) == nil)
    }

    /// Deletions win over every update and over inserts not newer than the tombstone; an insert
    /// newer than it re-creates the key.
    @Test func deletionsWinUnlessTheKeyIsCreatedAgainLater() {
        for tombstone in 1...4 {
            for clock in 1...4 {
                let (deletion, change) = (HLCTimestamp(rawValue: UInt64(tombstone)), HLCTimestamp(rawValue: UInt64(clock)))
                #expect(RowMerge.deletionWins(tombstone: deletion, over: .update, at: change))
                #expect(RowMerge.deletionWins(tombstone: deletion, over: .delete, at: change))
                #expect(RowMerge.deletionWins(tombstone: deletion, over: .insert, at: change) == (clock <= tombstone))
            }
        }
    }

    /// A pending row's clocks: each column is pushed with at least the whole row's clock; the row
    /// is deleted locally when its deletion is newer than its (re-)creation.
    @Test func pendingRowClocks() {
        var row = PendingRow()
        #expect(row.isEmpty && !row.isLocallyDeleted && row.clock(of: "c") == nil)
        row.add(op: LocalStoreSchema.updateOperation, column: "c", clock: HLCTimestamp(rawValue: 5))
        row.add(op: LocalStoreSchema.updateOperation, column: nil, clock: HLCTimestamp(rawValue: 9))
        #expect(row.clock(of: "c")?.rawValue == 5 && row.clock(of: "d") == nil)
        row.add(op: LocalStoreSchema.deleteOperation, column: nil, clock: HLCTimestamp(rawValue: 7))
        #expect(row.isLocallyDeleted && row.clock(of: "d")?.rawValue == 7 && row.clock(of: "c")?.rawValue == 7)
        row.add(op: LocalStoreSchema.insertOperation, column: nil, clock: HLCTimestamp(rawValue: 8))
        #expect(!row.isLocallyDeleted && row.wholeRowClock?.rawValue == 8)
    }
}
