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
    /// This client's identifier, as the application chose it, when the conflict is met by a
    /// sync; `nil` where no client is involved (an apply or preview of a file).
    public var localClientID: SyncIdentifier?
    /// The incoming value.
    public var remoteValue: DatabaseValue
    /// When the incoming value was written.
    public var remoteClock: HLCTimestamp
    /// The database id of the client that wrote the incoming value.
    public var remoteDatabaseID: String
    /// The identifier of the client whose change set brought the incoming value, when the
    /// conflict is met by a sync applying that set; `nil` where it is not known (an apply or
    /// preview of a file, a re-base on a whole store).
    public var remoteClientID: SyncIdentifier?

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
        remoteDatabaseID: String,
        localClientID: SyncIdentifier? = nil,
        remoteClientID: SyncIdentifier? = nil
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
        self.localClientID = localClientID
        self.remoteClientID = remoteClientID
    }

    /// The conflict with the clients that wrote its two values.
    func between(local: SyncIdentifier, remote: SyncIdentifier) -> Conflict {
        var conflict = self
        conflict.localClientID = local
        conflict.remoteClientID = remote
        return conflict
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
