/// The deterministic default rule for concurrent writes: the write with the larger hybrid logical
/// clock wins; equal clocks (two clients in the same millisecond and counter) are decided by the
/// larger database id in plain UTF-8 byte order. Every client reaches the same verdict from the same
/// pair, whatever order it sees them in, which is what makes the data converge.
public enum LastWriterWins {
    /// Whether the write `(clock, databaseID)` beats the write `(otherClock, otherDatabaseID)`.
    public static func isNewer(
        _ clock: HLCTimestamp,
        _ databaseID: String,
        than otherClock: HLCTimestamp,
        _ otherDatabaseID: String
    ) -> Bool {
        if clock != otherClock { return clock > otherClock }
        return otherDatabaseID.utf8.lexicographicallyPrecedes(databaseID.utf8)
    }
}
