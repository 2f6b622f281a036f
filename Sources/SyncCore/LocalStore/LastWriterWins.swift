/// The deterministic default rule for concurrent writes: the write with the larger hybrid logical
/// clock wins; equal clocks (two clients in the same millisecond and counter) are decided by the
/// larger client id in plain UTF-8 byte order. Every client reaches the same verdict from the same
/// pair, whatever order it sees them in, which is what makes the data converge.
public enum LastWriterWins {
    /// Whether the write `(clock, clientID)` beats the write `(otherClock, otherClientID)`.
    public static func isNewer(
        _ clock: HLCTimestamp,
        _ clientID: String,
        than otherClock: HLCTimestamp,
        _ otherClientID: String
    ) -> Bool {
        if clock != otherClock { return clock > otherClock }
        return otherClientID.utf8.lexicographicallyPrecedes(clientID.utf8)
    }
}
