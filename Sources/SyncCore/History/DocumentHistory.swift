import Foundation
import GRDB
import RemoteProtocol

/// Which change sets ``ApplicationSyncManager/history(of:matching:progress:)`` reports.
public struct HistoryQuery: Sendable, Equatable {
    /// Only sets whose newest change is at or after this moment.
    public var since: Date?
    /// Only sets whose newest change is at or before this moment.
    public var until: Date?
    /// Only sets of these clients (all when empty).
    public var clients: Set<SyncIdentifier>
    /// Only sets that change this table (compared as SQLite compares names, ignoring ASCII case);
    /// their counts and rows are limited to it.
    public var table: String?
    /// Only sets that change the row with this key (TEXT as it is, a BLOB as `x'0a1b…'`); their
    /// rows are limited to it.
    public var key: String?
    /// List the rows and columns each set touches (``HistoryEntry/rows``).
    public var includeRows: Bool

    /// A query; by default every set, counts only.
    public init(since: Date? = nil, until: Date? = nil, clients: Set<SyncIdentifier> = [], table: String? = nil, key: String? = nil, includeRows: Bool = false) {
        self.since = since
        self.until = until
        self.clients = clients
        self.table = table
        self.key = key
        self.includeRows = includeRows
    }

    /// Whether only the names of the sets decide (no table or key filter).
    var filtersByContent: Bool { table != nil || key != nil }
}

/// A document's history as its remote tells it: one entry per change set, oldest first (the order
/// every client applies them in), with what vacuum removed and what could not be read.
public struct DocumentHistory: Sendable, Equatable, Codable {
    /// The change sets, in apply order (clock, then id).
    public var entries: [HistoryEntry] = []
    /// For each client whose older sets a vacuum removed, up to when.
    public var vacuumed: [VacuumedHistory] = []
    /// Sets that matched by name but could not be read (they are not in ``entries``).
    public var unreadable: [UnreadableSet] = []

    /// Sets of one client removed by vacuum.
    public struct VacuumedHistory: Sendable, Equatable, Codable {
        /// The client whose sets were removed.
        public var client: String
        /// The time of the newest removed set; every older set of the client is gone too.
        public var through: Date
        /// The file name of the newest removed set.
        public var newestRemoved: String
    }

    /// A set that could not be read.
    public struct UnreadableSet: Sendable, Equatable, Codable {
        /// Its remote path.
        public var path: String
        /// Its client.
        public var client: String
        /// Why.
        public var reason: String
    }

    /// Creates an empty history.
    package init() {}
}

/// One change set of a document's history.
public struct HistoryEntry: Sendable, Equatable, Codable {
    /// How many rows of one table a set inserts, updates and deletes.
    public struct TableCounts: Sendable, Equatable, Codable {
        public var table: String
        public var inserted = 0
        public var updated = 0
        public var deleted = 0
    }

    /// One row a set changes.
    public struct Row: Sendable, Equatable, Codable {
        /// The table.
        public var table: String
        /// The row's key: TEXT as it is, a BLOB as `x'0a1b…'`.
        public var key: String
        /// `insert`, `update` or `delete`.
        public var operation: String
        /// The columns the change carries (every column for an insert, the changed ones for an
        /// update, none for a delete).
        public var columns: [String]
    }

    /// The client that pushed it.
    public var client: String
    /// That client's description (from its device info), if it is still registered.
    public var clientDescription: String?
    /// The set's id.
    public var setID: String
    /// The set's file name.
    public var fileName: String
    /// The time of its newest change (from its clock).
    public var time: Date
    /// How many row changes it holds (all tables, before any table or key filter).
    public var changeCount: Int
    /// Its changes by table, tables in name order.
    public var tables: [TableCounts]
    /// The rows it changes, in the set's order (with ``HistoryQuery/includeRows``).
    public var rows: [Row]?
    /// Whether the database that asked has applied it (or pushed it); `nil` when asked without a
    /// database (``ApplicationSyncManager/history(of:matching:progress:)``).
    public var appliedHere: Bool?
}

extension HistoryEntry {
    /// The entry for the verified set at `url`, or `nil` if `query`'s table or key filter
    /// excludes it. Reads the set once, one change at a time.
    static func read(
        _ set: DocumentHistoryListing.ListedSet, at url: URL, query: HistoryQuery, clientDescription: String?
    ) throws -> HistoryEntry? {
        let reader = try ChangeSetReader(contentsOf: url)
        var counts: [String: TableCounts] = [:]
        var rows: [Row] = []
        var total = 0
        var matched = !query.filtersByContent
        while let change = try reader.next() {
            total += 1
            if let table = query.table, change.table.caseInsensitiveCompare(table) != .orderedSame { continue }
            let key = Self.describe(key: change.key)
            if let wanted = query.key, key != wanted { continue }
            matched = true
            var tableCounts = counts[change.table] ?? TableCounts(table: change.table)
            switch change.kind {
            case .insert: tableCounts.inserted += 1
            case .update: tableCounts.updated += 1
            case .delete: tableCounts.deleted += 1
            }
            counts[change.table] = tableCounts
            if query.includeRows {
                rows.append(Row(table: change.table, key: key, operation: "\(change.kind)", columns: change.columns.map(\.name)))
            }
        }
        guard matched else { return nil }
        return HistoryEntry(
            client: set.client.rawValue, clientDescription: clientDescription, setID: set.name.id, fileName: set.name.fileName,
            time: set.name.clock.date, changeCount: total, tables: counts.values.sorted { $0.table < $1.table },
            rows: query.includeRows ? rows : nil, appliedHere: nil
        )
    }

    /// A row key as text: TEXT as it is, a BLOB as `x'…'` in lower-case hex.
    static func describe(key: DatabaseValue) -> String {
        switch key.storage {
        case .string(let text): text
        case .blob(let data): "x'" + Hex.lowercase(data) + "'"
        case .int64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .null: "NULL"
        }
    }
}

/// Reads the history of one remote document (see ``DocumentHistory``): names decide which sets
/// match the time and client filters without any download; each matching set is downloaded once
/// and read one change at a time.
struct HistoryLogReader: Sendable {
    let application: ApplicationRegistration
    let documentID: SyncIdentifier
    let query: HistoryQuery
    let progress: @Sendable (SyncProgress) -> Void

    func run() async throws -> DocumentHistory {
        let layout = application.layout.document(documentID)
        progress(SyncProgress(phase: .listing))
        let listing = try await DocumentHistoryListing.read(remote: application.remote, layout: layout, format: application.format)
        guard listing.integrityKey != nil || !listing.sets.isEmpty else {
            throw SyncError(.notFound, "document \(documentID) does not exist in application \(application.applicationID)")
        }
        var history = DocumentHistory()
        for (client, newest) in listing.newestVacuumed.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where query.clients.isEmpty || query.clients.contains(client) {
            history.vacuumed.append(.init(client: client.rawValue, through: newest.clock.date, newestRemoved: newest.fileName))
        }
        let matching = listing.sets.filter { set in
            let time = set.name.clock.date
            return (query.clients.isEmpty || query.clients.contains(set.client)) && query.since.map { time >= $0 } ?? true
                && query.until.map { time <= $0 } ?? true
        }
        var descriptions: [SyncIdentifier: String?] = [:]
        let fetcher = ChangeSetFetcher(remote: application.remote, layout: layout)
        for (index, set) in matching.enumerated() {
            progress(SyncProgress(phase: .downloading, itemsDone: index, itemsTotal: matching.count))
            if descriptions[set.client] == nil {
                // A description that cannot be read is left out; it never stops the log.
                descriptions[set.client] = .some(
                    try? await application.remote.readJSONIfPresent(DeviceInfo.self, from: application.layout.deviceInfo(set.client))?.description
                )
            }
            do {
                let entry = try await fetcher.withFetched(set.name, of: set.client) { url, _ in
                    try HistoryEntry.read(set, at: url, query: query, clientDescription: descriptions[set.client] ?? nil)
                }
                if let entry { history.entries.append(entry) }
            } catch let unreadable as ChangeSetFetcher.Unreadable {
                history.unreadable.append(.init(path: layout.changeSet(set.name, of: set.client).string, client: set.client.rawValue, reason: unreadable.reason))
            }
        }
        return history
    }
}
