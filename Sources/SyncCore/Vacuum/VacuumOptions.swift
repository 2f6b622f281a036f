import Foundation

/// How ``DocumentSyncManager/vacuum(_:)`` treats silent clients.
public struct VacuumOptions: Sendable, Equatable {
    /// Clients whose last sync is older than this are treated as **retired**: they no longer
    /// hold vacuum back, and their whole stores that lack removed sets are deleted. If such a
    /// client syncs again, it re-bootstraps from a whole store, keeping its unpushed changes.
    /// A client that syncs without pushing records its sync only every
    /// ``SyncConfiguration/lastSyncRecordInterval`` (one day by default), so choose a silence well
    /// beyond that (days, not hours), or working clients are retired too.
    /// `nil` (the default): every registered client holds vacuum back until it has applied.
    public var retireClientsSilentFor: TimeInterval?
    /// Keep this client's change sets whose newest change is younger than this, even when every
    /// client has applied them, so that ``DocumentSyncManager/history(matching:)`` still lists
    /// them and a document never vacuumed can be replayed from its beginning. What makes moments
    /// restorable is a whole store to start from: pair it with
    /// ``DocumentSyncManager/uploadWholeStore(keepingHistoryFor:)`` on every client (vacuum then
    /// keeps every set after the oldest kept whole store by itself). `nil` (the default): remove
    /// what nobody needs.
    public var keepHistoryFor: TimeInterval?
    /// The time "silent for" and "younger than" are measured from (the current time by default).
    public var now: Date

    /// Options; by default no client is retired and no history is kept on purpose.
    public init(retireClientsSilentFor: TimeInterval? = nil, keepHistoryFor: TimeInterval? = nil, now: Date = Date()) {
        self.retireClientsSilentFor = retireClientsSilentFor
        self.keepHistoryFor = keepHistoryFor
        self.now = now
    }
}
