import SyncCore

/// The demo's running totals over every sync it ran.
struct DemoTotals: Codable, Sendable {
    var syncs = 0
    var changesApplied = 0
    var changesPushed = 0
    var conflicts = 0
    var requests = 0
    var bytesUploaded: Int64 = 0
    var bytesDownloaded: Int64 = 0

    /// The size of the whole store uploaded for the bootstrap (sent once, read once).
    var wholeStoreBytes: Int64 = 0

    /// Adds one sync's report.
    mutating func add(_ report: SyncReport) {
        syncs += 1
        changesApplied += report.appliedChanges
        changesPushed += report.pushedChanges
        conflicts += report.conflicts.count
        requests += report.requests
        bytesUploaded += report.bytesUploaded
        bytesDownloaded += report.bytesDownloaded
    }
}
