/// What the trailer of a complete, verified change set records.
package struct ChangeSetSummary: Sendable, Equatable {
    /// The header of the set.
    package var header: ChangeSetHeader
    /// The number of row changes in the set.
    package var changeCount: Int
    /// The oldest row clock in the set, or ``HLCTimestamp/zero`` for an empty set.
    package var minimumClock: HLCTimestamp
    /// The newest row clock in the set, or ``HLCTimestamp/zero`` for an empty set.
    package var maximumClock: HLCTimestamp
    /// The number of bytes of the encoded set, trailer included.
    package var byteCount: Int

    /// Creates a summary.
    package init(
        header: ChangeSetHeader,
        changeCount: Int,
        minimumClock: HLCTimestamp,
        maximumClock: HLCTimestamp,
        byteCount: Int
    ) {
        self.header = header
        self.changeCount = changeCount
        self.minimumClock = minimumClock
        self.maximumClock = maximumClock
        self.byteCount = byteCount
    }
}
