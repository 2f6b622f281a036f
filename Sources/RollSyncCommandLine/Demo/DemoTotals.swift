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

    /// Adds a whole-store upload of `bytes` (before the codec).
    mutating func addWholeStoreUpload(bytes: Int64) {
        bytesUploaded += bytes
    }

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
