import GRDB

/// The unpushed local changes of one row, as the change log records them: the clocks of its
/// pending insert, delete and column edits (each the newest of its kind), and which of them are
/// local writes rather than writes published before and logged again (``ChangeLog/recordPublishedWrites(of:databaseID:in:)``).
///
/// Read by the apply (``ChangeSetApplier``), the whole-store re-base (``WholeStoreMerge``) and the
/// push (``PendingChangeFolder``), which all decide with the same clocks.
struct PendingRow: Equatable {
    var insertClock: HLCTimestamp?
    var deleteClock: HLCTimestamp?
    var columnClocks: [String: HLCTimestamp] = [:]
    /// The columns with a local edit, and ``LocalStoreSchema/rowClockColumn`` for a local insert
    /// or deletion: changes not only published before and logged again.
    var localWrites: Set<String> = []

    var isEmpty: Bool { insertClock == nil && deleteClock == nil && columnClocks.isEmpty }

    /// Whether any change is a local write (not only writes published before and logged again).
    var hasLocalWrites: Bool { !localWrites.isEmpty }

    /// Adds one change-log entry (`op` as in ``LocalStoreSchema``; `column` for an update;
    /// `republished` for a write published before and logged again).
    mutating func add(op: Int, column: String?, clock: HLCTimestamp, republished: Bool = false) {
        switch op {
        case LocalStoreSchema.insertOperation: insertClock = max(insertClock ?? clock, clock)
        case LocalStoreSchema.deleteOperation: deleteClock = max(deleteClock ?? clock, clock)
        default:
            guard let column else { return }
            columnClocks[column] = max(columnClocks[column] ?? clock, clock)
            if !republished { localWrites.insert(column) }
            return
        }
        if !republished { localWrites.insert(LocalStoreSchema.rowClockColumn) }
    }

    /// Whether the pending value of `column` comes only from writes published before and logged
    /// again: it then merges by its clock alone (last writer wins, no conflict), as a published
    /// write does.
    func isRepublished(_ column: String) -> Bool {
        guard clock(of: column) != nil else { return false }
        return !localWrites.contains(column) && (wholeRowClock == nil || !localWrites.contains(LocalStoreSchema.rowClockColumn))
    }

    /// The newest clock of each column in `text`, the column edits of one row as the push's grouping
    /// of the log concatenates them: `<clock>,<length>,<column>` for each edit, `<length>` the
    /// column name's length in characters (SQLite's `length()`, which counts Unicode scalars), so
    /// any name reads back whole.
    /// - Throws: a `DatabaseError` if `text` does not follow that form.
    static func columnClocks(concatenated text: String) throws -> [String: HLCTimestamp] {
        var clocks: [String: HLCTimestamp] = [:]
        let scalars = text.unicodeScalars
        var position = scalars.startIndex
        /// The decimal integer up to the next comma, which is consumed.
        func integer() -> Int64? {
            guard let comma = scalars[position...].firstIndex(of: ","), let value = Int64(String(scalars[position..<comma])) else {
                return nil
            }
            position = scalars.index(after: comma)
            return value
        }
        while position < scalars.endIndex {
            guard let clock = integer(), let length = integer(), length >= 0,
                let end = scalars.index(position, offsetBy: Int(length), limitedBy: scalars.endIndex)
            else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "a pending row's column edits do not read back: \(text)")
            }
            let column = String(scalars[position..<end])
            let timestamp = HLCTimestamp(rawValue: UInt64(bitPattern: clock))
            clocks[column] = max(clocks[column] ?? timestamp, timestamp)
            position = end
        }
        return clocks
    }

    /// The clock of the row's pending insert or delete, the newer: the clock every column is
    /// pushed with at least ("send the whole row").
    var wholeRowClock: HLCTimestamp? {
        guard let insertClock else { return deleteClock }
        return deleteClock.map { max($0, insertClock) } ?? insertClock
    }

    /// The clock the pending value of `column` is pushed with (the newer of the whole-row clock and
    /// the column's own edit), or `nil` when the column has no pending change.
    func clock(of column: String) -> HLCTimestamp? {
        guard !columnClocks.isEmpty, let edit = columnClocks[column] else { return wholeRowClock }
        return wholeRowClock.map { max($0, edit) } ?? edit
    }

    /// The clock the row's pending creation will be published with and weighed by
    /// (``RowMerge/creationClock(of:)`` of the insert it folds into, for a table with `columns`):
    /// `nil` without a pending creation, or when the row's newest pending change is its deletion.
    func creationClock(columns: [String]) -> HLCTimestamp? {
        guard let insertClock, !isLocallyDeleted else { return nil }
        return columns.compactMap { clock(of: $0) }.min() ?? insertClock
    }

    /// True when the row's newest pending change is its deletion (a re-creation after it is not).
    var isLocallyDeleted: Bool {
        guard let deleteClock else { return false }
        return insertClock.map { $0 < deleteClock } ?? true
    }
}

/// One write of one cell: its value, and the clock and database id that wrote it.
struct CellWrite: Equatable {
    var value: DatabaseValue
    var clock: HLCTimestamp
    var databaseID: String
}

/// The merge rule of RollingSync, in one place and without SQLite: what becomes of one cell when
/// a remote write meets it, and whether a deletion wins over an incoming change. The apply of a
/// change set (``ChangeSetApplier``) and the re-base of local changes onto a whole store
/// (``WholeStoreMerge``) both decide through it, so every client reaches the same verdict from
/// the same writes, whichever of the two paths brought them together.
enum RowMerge {
    /// Which of the two writes the table holds when the merge runs: the apply merges an incoming
    /// write into the local table (`local`); the re-base merges a local edit into an installed
    /// store (`remote`).
    enum Holder {
        case local
        case remote
    }

    /// What the merge of a local edit and a remote write of one cell does.
    struct CellVerdict: Equatable {
        /// The value to write into the table, or `nil` when it already holds the outcome.
        var write: DatabaseValue?
        /// The remote write is the cell's current write: its clock becomes the cell's clock.
        var takesRemoteClock = false
        /// The local edit is superseded: its log entry is dropped, so its older clock no longer
        /// answers for the cell and it is not pushed.
        var dropsPendingEdit = false
        /// The outcome goes against the later write (a resolver's choice, or a merged value): it is
        /// logged again with a new clock, so that every client ends with it.
        var republishes = false
        /// The conflict and its resolution, when the values differed (reported to the app).
        var reported: ApplyReport.ResolvedConflict?
    }

    /// Merges a pending local edit and a remote write of the same cell.
    ///
    /// The pair with the larger (clock, database id) is the cell's current write
    /// (``LastWriterWins``). Equal values need no decision; different values are a ``Conflict``
    /// for `resolver`:
    /// - `.remote` by the later write: the remote value, its clock, the local edit superseded;
    /// - `.remote` against the later write: the remote value, re-published;
    /// - `.local`: the local value, which stays pending; re-published against the later write;
    /// - `.merged(v)`: `v`, always written and re-published.
    static func mergeCell(
        local: CellWrite, remote: CellWrite, held: Holder, table: String, key: DatabaseValue, column: String, resolver: ConflictResolver
    ) throws -> CellVerdict {
        let conflict = Conflict(
            table: table, key: key, column: column,
            localValue: local.value, localClock: local.clock, localDatabaseID: local.databaseID,
            remoteValue: remote.value, remoteClock: remote.clock, remoteDatabaseID: remote.databaseID
        )
        let (resolution, isReported) = try conflict.decision(by: resolver)
        let heldValue = held == .local ? local.value : remote.value
        var verdict = CellVerdict(reported: isReported ? .init(conflict: conflict, resolution: resolution) : nil)
        switch resolution {
        case .remote where conflict.remoteWinsByLastWriter:
            verdict.takesRemoteClock = true
            verdict.dropsPendingEdit = true
            if heldValue != remote.value { verdict.write = remote.value }
        case .remote:
            verdict.republishes = true
            if heldValue != remote.value { verdict.write = remote.value }
        case .local:
            verdict.republishes = conflict.remoteWinsByLastWriter
            if heldValue != local.value { verdict.write = local.value }
        case .merged(let value):
            verdict.republishes = true
            verdict.write = value
        }
        return verdict
    }

    /// Whether a remote write of a cell of a present row is no newer than the cell's current
    /// write (`stored`) and is therefore ignored; equal writes are stale too (a set applied twice
    /// changes nothing). A write at clock 0 is stale even where no write is recorded: it is a row
    /// that predates the document, published again (``ChangeLog/recordPublishedWrites(of:databaseID:in:)``),
    /// and the present row holds those values or later ones.
    static func isStale(_ incoming: (clock: HLCTimestamp, databaseID: String), against stored: (clock: HLCTimestamp, databaseID: String)?) -> Bool {
        guard let stored else { return incoming.clock == .zero }
        return !LastWriterWins.isNewer(incoming.clock, incoming.databaseID, than: stored.clock, stored.databaseID)
    }

    /// The cell's current write from its own record and its row's creation record (the newer;
    /// a tie goes to the cell's own record).
    static func currentWrite(
        cell: (clock: HLCTimestamp, databaseID: String)?, row: (clock: HLCTimestamp, databaseID: String)?
    ) -> (clock: HLCTimestamp, databaseID: String)? {
        switch (cell, row) {
        case (let cell?, let row?):
            LastWriterWins.isNewer(row.clock, row.databaseID, than: cell.clock, cell.databaseID) ? row : cell
        case (let cell, let row):
            cell ?? row
        }
    }

    /// Whether a known deletion of a row (its tombstone's clock) wins over an incoming change:
    /// deletions win over every update, and over an insert that is not newer (an insert newer
    /// than the tombstone re-created the key after its deletion, by a client that had seen it).
    static func deletionWins(tombstone: HLCTimestamp, over kind: RowChange.Kind, at clock: HLCTimestamp) -> Bool {
        !(kind == .insert && clock > tombstone)
    }

    /// Whether a known deletion (its clock) wins over the incoming `change`, an insert being
    /// weighed by its ``creationClock(of:)``.
    static func deletionWins(tombstone: HLCTimestamp, over change: RowChange) -> Bool {
        deletionWins(tombstone: tombstone, over: change.kind, at: creationClock(of: change))
    }

    /// The clock a creation is weighed by against deletions: its oldest cell's, which is when the
    /// row was created (cells edited before the push carry later clocks, and edits lose to a
    /// deletion like any update), or the change's own for a row without other columns. Every
    /// client that creates or receives the row records it as the row's clock
    /// (``LocalStoreSchema/rowClockColumn``; the creating client when it pushes, see
    /// `ChangeLog.retire`, and ``PendingRow/creationClock(columns:)`` before), so a deletion or
    /// another creation meets the same creation clock on every client, whichever arrives first.
    static func creationClock(of change: RowChange) -> HLCTimestamp {
        change.columns.map(\.clock).min() ?? change.clock
    }
}
