import Foundation

/// What ``DocumentSyncManager/vacuum(_:)`` did and what held it back.
public struct VacuumReport: Sendable, Equatable {
    /// Why a change set could not be removed yet.
    public struct Hold: Sendable, Equatable {
        /// The reason (an open set: a `switch` needs an `@unknown default:`).
        @nonexhaustive
        public enum Reason: Sendable, Equatable {
            /// A registered client has not recorded that it applied the set (it has not synced
            /// since, or never; a client that syncs without pushing records it only every
            /// ``SyncConfiguration/lastSyncRecordInterval``, or at its own vacuum), or its record
            /// cannot be read.
            case notApplied
            /// A client's whole store does not contain the set yet (its uploader should upload again).
            case wholeStoreLacksSet(WholeStoreUnitName)
            /// No whole store contains the set: removing it would leave nothing to bootstrap new
            /// clients from. Upload a whole store first.
            case noWholeStore
            /// The set is younger than ``VacuumOptions/keepHistoryFor``: it is kept for restore.
            case keptForHistory
        }

        /// The client holding vacuum back (`nil` for ``Reason/noWholeStore`` and
        /// ``Reason/keptForHistory``).
        public var client: SyncIdentifier?
        /// The reason.
        public var reason: Reason
        /// Since when: the client's last recorded sync (``Reason/notApplied``), the whole store's date, or
        /// the set's time (``Reason/keptForHistory``); `nil` if the client never synced.
        public var since: Date?

        /// Describes a hold.
        package init(client: SyncIdentifier?, reason: Reason, since: Date?) {
            self.client = client
            self.reason = reason
            self.since = since
        }
    }

    /// The file names of this client's change sets that were removed, oldest first.
    public var removedSets: [String] = []
    /// How many of this client's change sets remain.
    public var keptSets = 0
    /// What keeps the oldest remaining set (empty when nothing remains or all could go). When a
    /// whole store or the history kept holds it, only those are named: the clients' records are
    /// then not read.
    public var holds: [Hold] = []
    /// The clients treated as retired (see ``VacuumOptions/retireClientsSilentFor``).
    public var retiredClients: [SyncIdentifier] = []
    /// Whole stores of retired clients deleted because they lacked removed sets.
    public var removedWholeStores: [WholeStoreUnitName] = []
}
