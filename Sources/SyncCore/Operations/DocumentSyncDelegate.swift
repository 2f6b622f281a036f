/// The decisions a ``DocumentSyncManager`` asks the application for: TICoreDataSync's interactive
/// pauses, as async questions with sensible defaults (every method has a default implementation,
/// so an application implements only what it wants to decide itself).
public protocol DocumentSyncDelegate: Sendable {
    /// The document has no remote data: create it? `wasDeleted` is true if another client deleted
    /// it (a tombstone exists); recreating it tells every other client that it was reset.
    /// Default: `true`. Answering `false` makes registration throw ``SyncError/Code/declined``.
    func shouldCreateDocument(_ documentID: SyncIdentifier, wasDeleted: Bool) async -> Bool

    /// Another client removed this client from the document (or recreated the document). Local
    /// data, including unpushed changes, is never discarded. Default:
    /// ``RegistrationRecovery/keepLocalDataAndRegister``.
    func clientWasRemoved(from documentID: SyncIdentifier) async -> RegistrationRecovery

    /// The document's integrity key differs from the one this database adopted: the remote
    /// document was deleted and recreated since. Unpushed local changes are kept whatever the
    /// answer. Default: ``RegistrationRecovery/keepLocalDataAndRegister``.
    func integrityKeyChanged(for documentID: SyncIdentifier) async -> RegistrationRecovery

    /// Decides conflicts while other clients' changes are applied. Default:
    /// ``ConflictResolver/lastWriterWins``.
    var conflictResolver: ConflictResolver { get }
}

/// What to do when registration finds that the remote document was reset or this client removed.
public enum RegistrationRecovery: Sendable, Equatable {
    /// Keep every local row and unpushed change, adopt the document's current state (its
    /// integrity key), register again, and push the unpushed changes at the next sync. The sync
    /// report carries a warning so the application can, for example, offer a whole-store download.
    case keepLocalDataAndRegister
    /// Stop: registration and sync throw (``SyncError/Code/clientRemoved`` or
    /// ``SyncError/Code/integrityKeyMismatch``); nothing local or remote changes.
    case stop
}

extension DocumentSyncDelegate {
    public func shouldCreateDocument(_ documentID: SyncIdentifier, wasDeleted: Bool) async -> Bool { true }

    public func clientWasRemoved(from documentID: SyncIdentifier) async -> RegistrationRecovery {
        .keepLocalDataAndRegister
    }

    public func integrityKeyChanged(for documentID: SyncIdentifier) async -> RegistrationRecovery {
        .keepLocalDataAndRegister
    }

    public var conflictResolver: ConflictResolver { .lastWriterWins }
}

/// The delegate used when the application gives none: every default.
struct DefaultDocumentSyncDelegate: DocumentSyncDelegate {}
