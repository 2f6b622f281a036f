import GRDB

/// The same column of the same row was changed locally (not yet pushed) and by another client, to
/// different values.
public struct Conflict: Sendable, Equatable {
    /// The table.
    public var table: String
    /// The row's key.
    public var key: DatabaseValue
    /// The column.
    public var column: String
    /// The local (unpushed) value, as currently stored.
    public var localValue: DatabaseValue
    /// When the local value was written.
    public var localClock: HLCTimestamp
    /// This database's database id.
    public var localDatabaseID: String
    /// The incoming value.
    public var remoteValue: DatabaseValue
    /// When the incoming value was written.
    public var remoteClock: HLCTimestamp
    /// The client that wrote the incoming value.
    public var remoteDatabaseID: String

    /// Creates a conflict description.
    public init(
        table: String,
        key: DatabaseValue,
        column: String,
        localValue: DatabaseValue,
        localClock: HLCTimestamp,
        localDatabaseID: String,
        remoteValue: DatabaseValue,
        remoteClock: HLCTimestamp,
        remoteDatabaseID: String
    ) {
        self.table = table
        self.key = key
        self.column = column
        self.localValue = localValue
        self.localClock = localClock
        self.localDatabaseID = localDatabaseID
        self.remoteValue = remoteValue
        self.remoteClock = remoteClock
        self.remoteDatabaseID = remoteDatabaseID
    }

    /// The last-writer-wins verdict: the remote value wins when its (clock, database id) pair is the
    /// larger one (see ``LastWriterWins``).
    public var remoteWinsByLastWriter: Bool {
        LastWriterWins.isNewer(remoteClock, remoteDatabaseID, than: localClock, localDatabaseID)
    }
}

extension Conflict {
    /// The decision on this pair of writes of one cell: equal values need no decision (the later
    /// write is the cell's, `isReported` is `false`); different values go to `resolver`.
    func decision(by resolver: ConflictResolver) throws -> (resolution: ConflictResolution, isReported: Bool) {
        if localValue == remoteValue {
            return (remoteWinsByLastWriter ? .remote : .local, false)
        }
        return (try resolver.resolve(self), true)
    }
}
