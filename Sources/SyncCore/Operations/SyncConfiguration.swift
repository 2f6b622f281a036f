import Foundation
import Logging

/// How ``DocumentSyncManager/open(database:store:configuration:)`` binds a database to a synced
/// document, in GRDB's `Configuration` style: the two things only the app knows are required,
/// everything else has a default to change as needed.
///
/// ```swift
/// var configuration = SyncConfiguration(applicationID: "com.example.notes", tables: ["note"])
/// configuration.automaticSync = AutomaticSyncConfiguration()   // sync by itself
/// let notebook = try await DocumentSyncManager.open(database: dbQueue, store: store, configuration: configuration)
/// ```
public struct SyncConfiguration: Sendable {
    /// The document of a database opened without a ``documentID``: an app with one shared database
    /// needs no document names.
    public static let defaultDocumentID = "default"

    /// The application, shared by all its devices (a reverse-DNS name such as
    /// `com.example.notes`; see ``SyncIdentifier`` for the characters allowed).
    public var applicationID: String
    /// The synced tables (see Docs/GettingStarted.md for the keys they may have).
    public var tables: [String]
    /// The document this database holds. `nil` (the default): the document the database is
    /// bound to, or ``defaultDocumentID`` for a database that never synced.
    public var documentID: String?
    /// This device, unique within the application: any text, such as the device's name (text
    /// that is not a valid ``SyncIdentifier`` is turned into one by
    /// ``SyncIdentifier/init(deriving:)``, always the same for the same text). `nil` (the default):
    /// the client the database is bound to, or for a database that never synced its own database
    /// id (``LocalStore/databaseID``, a UUID kept in the database): the same at every launch.
    ///
    /// The binding travels with the file: a copy of the database (a backup restored on a second
    /// device while the first one goes on) would sync as the same client, and two databases
    /// syncing as one client do not converge. If your app's databases can be copied that way,
    /// give each device its own id here from the start (one kept outside the database, such as
    /// in the device's preferences): a database bound to another client is refused.
    public var clientID: String?
    /// This client's description for people (in listings of clients, stored on the remote); `nil`
    /// (the default): the client text given, else the host's name.
    public var clientDescription: String?
    /// Stored with the document if this client creates it.
    public var documentDescription = ""
    /// The application's decisions; `nil` (the default) takes every default (see
    /// ``DocumentSyncDelegate``).
    public var delegate: (any DocumentSyncDelegate)?
    /// How encrypted remote data is created and unlocked; `nil` (the default) for none.
    public var encryption: EncryptingCodecProvider?
    /// Where RollingSync logs what it does; nothing by default.
    public var logger = Logger(label: "rollingsync", factory: { _ in SwiftLogNoOpLogHandler() })
    /// When set, the manager syncs by itself with this policy (``DocumentSyncManager/automaticSync``,
    /// started by `open`, stopped by ``DocumentSyncManager/close()``); `nil` (the default): the app
    /// calls ``DocumentSyncManager/synchronize()`` when it likes.
    public var automaticSync: AutomaticSyncConfiguration?
    /// How long RollingSync's work on the database waits for a lock another connection or process
    /// holds, when the database's connection is configured to fail at once (GRDB's default
    /// `busyMode`, `.immediateError`, with which every sync would fail with `SQLITE_BUSY` whenever
    /// the app, an extension or the `sqlite3` tool writes): `open` then gives the writer's
    /// connection this busy timeout (`PRAGMA busy_timeout`; a `DatabasePool`'s readers are left as
    /// they are). A connection with a busy mode or a `PRAGMA busy_timeout` of its own is left as
    /// it is, and so is every connection when this is `nil`. 30 s by default.
    public var busyTimeout: Duration? = .seconds(30)
    /// How stale a sync that pushes nothing may leave this client's last-sync record, which tells
    /// the other clients when this one last synced (listings, vacuum's silent clients) and which
    /// of their change sets it applied (what vacuum may remove). A sync that pushes writes it
    /// always; one that only applies, or finds nothing new, writes it only once it is this old (or
    /// when it is missing), so a sync with nothing new costs one listing and writes nothing. The
    /// times others see are then up to this late, and vacuum removes sets up to this much later:
    /// retire clients (``VacuumOptions/retireClientsSilentFor``) only after a silence well beyond
    /// it. ``defaultLastSyncRecordInterval`` (one day) by default; `.zero` records every sync.
    /// Remote format 1 records every sync whatever this says.
    public var lastSyncRecordInterval = defaultLastSyncRecordInterval

    /// The default ``lastSyncRecordInterval``: one day.
    public static let defaultLastSyncRecordInterval = Duration.seconds(86_400)

    /// A configuration syncing `tables` for the application `applicationID`, with every default.
    public init(applicationID: String, tables: [String]) {
        self.applicationID = applicationID
        self.tables = tables
    }
}
