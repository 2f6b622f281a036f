import Foundation
import GRDB
import Testing
@testable import SyncCore

/// A local unpushed edit that loses to a remote write (by the resolver, or because both wrote the
/// same value and the remote write is the later one) is superseded: a third write that is newer
/// than the local edit but older than the winning remote write must not override the winner,
/// whatever order the sets arrive in and whether the local client pushed in between.
///
/// Clocks are crafted: the local edit's clock is read back after capture, and the remote sets carry
/// clocks and client ids chosen around it, so each case, including exact clock ties between clients
/// (decided by client id), runs deterministically. Client ids "X" and "Z" sort after every UUID
/// string (uppercase hexadecimal), so on a tie: local < "X" < "Z".
@Suite("Superseded local edits and clock ties")
struct SupersededLocalEditTests {
    /// How the three writes' clocks relate: all equal (ties decided by client id), or strictly
    /// increasing local < middle < winner.
    enum Spacing: String, CaseIterable, CustomTestStringConvertible {
        case tie, spaced
        var testDescription: String { rawValue }
    }

    /// A client holding row `k` (applied, not pending) with a local unpushed edit of its name, and
    /// the clock of that edit.
    static func clientWithLocalEdit(_ value: String) throws -> (TemporaryDatabase, HLCTimestamp) {
        let client = try TemporaryDatabase()
        let creation = ChangeSetApplyTests.insert("items", "k", ["name": "original".databaseValue])
        try client.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet([creation], clientID: "creator", in: client))
        try client.pool.write { db in try db.execute(sql: "UPDATE items SET name = ? WHERE id = 'k'", arguments: [value]) }
        let pending = try #require(try client.pendingChanges().first)
        #expect(client.store.databaseID.utf8.lexicographicallyPrecedes("X".utf8))
        return (client, pending.clock)
    }

    /// A set from `clientID` setting the name of `k` at `clock`.
    static func nameSet(_ value: String, at clock: HLCTimestamp, from clientID: String, in client: TemporaryDatabase) throws -> URL {
        let change = RowChange(
            kind: .update, table: "items", key: "k".databaseValue, clock: clock,
            columns: [.init(name: "name", value: value.databaseValue, clock: clock)]
        )
        return try ChangeSetApplyTests.handMadeSet([change], clientID: clientID, in: client)
    }

    /// The clocks of the middle write ("X") and of the winning write ("Z") for a local clock.
    static func clocks(after local: HLCTimestamp, _ spacing: Spacing) -> (middle: HLCTimestamp, winner: HLCTimestamp) {
        switch spacing {
        case .tie: (local, local)
        case .spaced: (HLCTimestamp(rawValue: local.rawValue + 1), HLCTimestamp(rawValue: local.rawValue + 2))
        }
    }

    static func name(in client: TemporaryDatabase) throws -> DatabaseValue? {
        try client.items()["k"]?.first
    }

    /// The local edit's value: different from the winning remote write's (a conflict the resolver
    /// decides) or equal to it (no conflict, but still the older write of the cell).
    enum LocalValue: String, CaseIterable, CustomTestStringConvertible {
        case different, equal
        var testDescription: String { rawValue }
    }

    @Test(
        "a local edit superseded by a later remote write no longer competes with later arrivals",
        arguments: Spacing.allCases, LocalValue.allCases
    )
    func supersededBeforeLaterArrival(spacing: Spacing, localValue: LocalValue) throws {
        let (client, local) = try Self.clientWithLocalEdit(localValue == .equal ? "winner" : "local")
        let (middle, winner) = Self.clocks(after: local, spacing)
        let report = try client.store.applyChangeSet(at: Self.nameSet("winner", at: winner, from: "Z", in: client))
        #expect(report.conflicts.map(\.resolution) == (localValue == .equal ? [] : [.remote]), "equal values are no conflict")
        #expect(try client.pendingChanges().isEmpty, "the superseded local edit is not pushed again")
        try client.store.applyChangeSet(at: Self.nameSet("middle", at: middle, from: "X", in: client))
        #expect(try Self.name(in: client) == "winner".databaseValue)
    }

    @Test("after pushing, a late write older than the remote winner is stale", arguments: Spacing.allCases)
    func equalValueThenPushThenLateArrival(spacing: Spacing) throws {
        let (client, local) = try Self.clientWithLocalEdit("same")
        let (middle, winner) = Self.clocks(after: local, spacing)
        try client.store.applyChangeSet(at: Self.nameSet("same", at: winner, from: "Z", in: client))
        _ = try client.push()
        let report = try client.store.applyChangeSet(at: Self.nameSet("middle", at: middle, from: "X", in: client))
        #expect(report.staleValuesIgnored == 1)
        #expect(try Self.name(in: client) == "same".databaseValue)
    }

    @Test("a local edit that wins a tie keeps its value and is pushed with its clock")
    func localWinsTie() throws {
        let (client, local) = try Self.clientWithLocalEdit("local")
        let report = try client.store.applyChangeSet(at: Self.nameSet("remote", at: local, from: "0", in: client))
        #expect(report.conflicts.map(\.resolution) == [.local], "client id '0' sorts before every UUID string")
        #expect(try Self.name(in: client) == "local".databaseValue)
        let pushed = try client.pendingChanges()
        #expect(pushed.map(\.clock) == [local])
    }

    @Test("pushing a local write whose clock ties a stored cell clock keeps the larger client id")
    func pushedClockTiesStoredClock() throws {
        let (client, _) = try Self.clientWithLocalEdit("local")
        _ = try client.push()
        let tie = HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + 3_600_000)
        // The cell's stored clock: a write at `tie` from "0" (before every UUID string), folded into
        // the indexed cell clocks by the late set that follows.
        try client.store.applyChangeSet(at: Self.nameSet("from 0", at: tie, from: "0", in: client))
        try client.store.applyChangeSet(at: ChangeSetApplyTests.handMadeSet(
            [RowChange(kind: .delete, table: "items", key: "absent".databaseValue, clock: tie)], clientID: "0", in: client
        ))
        // A local write stamped with exactly the same clock (crafted in the log: capture would
        // stamp a later one), then pushed.
        try client.pool.write { db in
            try db.execute(sql: """
                UPDATE rollingsync_state SET applying = 1;
                UPDATE items SET name = 'local at the tie' WHERE id = 'k';
                UPDATE rollingsync_state SET applying = 0;
                INSERT INTO rollingsync_changes (wall, clock, table_id, row_key, op, column_name)
                    SELECT julianday('now'), ?, id, 'k', ?, 'name' FROM rollingsync_tables WHERE name = 'items';
                """, arguments: [tie.databaseInteger, RowChange.Kind.update.rawValue])
        }
        let pending = try client.pendingChanges()
        #expect(pending.map(\.kind) == [.update] && pending.map(\.clock) == [tie])
        _ = try client.push()
        // A late write at the same clock from a client id between "0" and this client's loses to
        // the pushed local write, as it does on every client that received both.
        let report = try client.store.applyChangeSet(at: Self.nameSet("from 0+", at: tie, from: "0\u{1}", in: client))
        #expect(report.staleValuesIgnored == 1)
        #expect(try Self.name(in: client) == "local at the tie".databaseValue)
    }
}
