import Foundation

/// How ``DocumentSyncManager/vacuum(_:)`` treats silent clients.
public struct VacuumOptions: Sendable, Equatable {
    /// Clients whose last sync is older than this are treated as **retired**: they no longer
    /// hold vacuum back, and their whole stores that lack removed sets are deleted. If such a
    /// client syncs again, it re-bootstraps from a whole store, keeping its unpushed changes.
    /// `nil` (the default): every registered client holds vacuum back until it has applied.
    public var retireClientsSilentFor: TimeInterval?
    /// The time "silent for" is measured from (the current time by default).
    public var now: Date

    /// Options; by default no client is retired.
    public init(retireClientsSilentFor: TimeInterval? = nil, now: Date = Date()) {
        self.retireClientsSilentFor = retireClientsSilentFor
        self.now = now
    }
}
