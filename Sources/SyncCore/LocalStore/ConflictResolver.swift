/// Decides conflicts while a change set is applied. It runs inside the apply transaction, so it must
/// answer synchronously; an application that asks its user can decide later from the conflicts
/// each ``SyncReport`` lists (the overridden values are in them) and write its choice as a new
/// edit. A resolver that throws aborts the apply and leaves nothing applied.
public struct ConflictResolver: Sendable {
    private let decide: @Sendable (Conflict) throws -> ConflictResolution

    /// Creates a resolver from a closure.
    public init(_ decide: @escaping @Sendable (Conflict) throws -> ConflictResolution) {
        self.decide = decide
    }

    /// Returns the decision for one conflict.
    public func resolve(_ conflict: Conflict) throws -> ConflictResolution {
        try decide(conflict)
    }

    /// The default: last writer wins by clock, then client id (see ``LastWriterWins``).
    public static let lastWriterWins = ConflictResolver { conflict in
        conflict.remoteWinsByLastWriter ? .remote : .local
    }
}
