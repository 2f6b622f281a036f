import Foundation

/// What one sync did.
public struct SyncReport: Sendable {
    /// Other clients' change sets applied.
    public var appliedSets = 0
    /// Row changes in those sets.
    public var appliedChanges = 0
    /// Row changes pushed in this client's new change set (0 if nothing was pending).
    public var pushedChanges = 0
    /// The remote file name of the pushed set, if one was pushed.
    public var pushedSetName: String?
    /// Conflicts met while applying, each with the decision taken.
    public var conflicts: [ApplyReport.ResolvedConflict] = []
    /// Notices that did not stop the sync (delete-versus-update, unreadable sets, resets).
    public var warnings: [SyncWarning] = []
    /// The reports of each applied set, in the order applied.
    public var applyReports: [ApplyReport] = []
    /// Schema changes of the synced tables this sync noticed and followed first (see
    /// ``LocalStore/refreshSchema()``).
    public var schemaChanges: [SchemaChange] = []
    /// Protocol requests this sync made, as the server sees them (HTTP requests, SFTP operations;
    /// one per call for backends that do not report them), document
    /// registration included (the application registration happens once per
    /// ``ApplicationSyncManager`` and is not counted).
    public var requests = 0
    /// The requests among ``requests`` that retried a call after a transient failure (a dropped
    /// connection, a timeout, a server's 5xx), as the backend reports them: 0 on a healthy link,
    /// and always 0 for a backend that does not report retries.
    public var retriedRequests = 0
    /// Calls of the remote store's primitives this sync made (a WebDAV download is one call and
    /// two requests), counted like ``requests``.
    public var storeCalls = 0
    /// The calls among ``storeCalls`` that changed the remote (uploads, copies, deletions,
    /// directory creations): normally none for a sync that finds nothing new or only applies,
    /// which records itself only every ``SyncConfiguration/lastSyncRecordInterval`` (and when its
    /// record is missing, or after a registration or a whole-store install).
    public var writeCalls = 0
    /// Bytes this sync uploaded (as stored, after the codec).
    public var bytesUploaded: Int64 = 0
    /// Bytes this sync downloaded (as stored, before the codec).
    public var bytesDownloaded: Int64 = 0
    /// When the sync started.
    public var startedAt = Date()
    /// When the sync ended.
    public var finishedAt = Date()

    /// The whole store this sync installed first (the first sync of a database that joined the
    /// document, after a vacuum removed history it needed, or after this client was removed or
    /// the document reset), with its re-based local changes.
    public var wholeStoreInstalled: WholeStoreDownload?
    /// The whole store this sync uploaded: after it created the document from a database that
    /// held rows (their only carrier to the clients that join), or recreated it from a database
    /// that had synced before (a deleted document, removed remote data), so that the other
    /// clients, which find the document reset, re-base on it.
    public var wholeStoreUploaded: WholeStoreUpload?

    /// Creates an empty report.
    package init() {}

    /// Records a whole store this sync installed, with the conflicts and rule effects of merging
    /// the unpushed local changes into it.
    mutating func recordInstalled(_ installed: WholeStoreDownload?) {
        guard let installed else { return }
        wholeStoreInstalled = installed
        conflicts += installed.installation.conflicts
        warnings += installed.installation.warnings.map { .settledLocally($0) }
    }
}
