import Foundation
import RemoteProtocol

/// Registers a local database with a remote document (TICoreDataSync's document registration,
/// with its pauses turned into ``DocumentSyncDelegate`` decisions and its data-losing reset fixed).
///
/// Steps, each skipped when its answer is already known:
/// 1. `documentInfo.json` missing: the document does not exist (or its creation was interrupted).
///    A tombstone in `Information/DeletedDocuments/` tells whether it was deleted. If the delegate
///    agrees, the document is created: its directories, an integrity key (reused if an interrupted
///    creation left one), for a recreated document a `DeletedClients/<c>.json` for every other
///    client of the application (so each learns the document was reset) and the removal of the
///    tombstone, then `documentInfo.json` **last**, so its presence means the document is complete.
/// 2. The document exists but `SyncChanges/<client>/` does not: a `DeletedClients/<client>.json`
///    means another client removed this one; the delegate decides whether to register again
///    (keeping local data) and the tombstone is then removed.
/// 3. Integrity key: its directory is listed (``IntegrityKeyFile``) and its key adopted. A key that differs from the
///    one this database adopted before means the document was recreated: the delegate decides;
///    unpushed local changes are **kept** either way (TICoreDataSync wiped them).
/// 4. The registration is recorded in the database, then `SyncChanges/<client>/` created. A
///    database that joins a document for the first time publishes the rows it already holds, and
///    its next sync starts from the document's newest whole store; one that created the document
///    from data uploads a whole store of it after its next sync; one whose change-set directory is
///    gone from a document that kept its integrity key (another client removed it) publishes again
///    what it wrote
///    (``LocalSyncState/markRegistered(integrityKey:created:firstJoin:rejoining:)``).
struct DocumentRegistrar {
    let application: ApplicationRegistration
    let remote: CodedRemote
    let documentID: SyncIdentifier
    let documentDescription: String
    let state: LocalSyncState
    let delegate: any DocumentSyncDelegate

    private var layout: DocumentLayout { application.layout.document(documentID) }
    private var clientID: SyncIdentifier { application.clientID }

    func register() async throws -> DocumentRegistration {
        guard let local = try state.registration() else {
            throw SyncError(.notRegistered, "the database is not configured for document \(documentID)")
        }
        var adoptedKey = local.integrityKey
        var warnings: [SyncWarning] = []
        var created = false
        var recreated = false
        var ownDirectoryExists = false
        if try await remote.exists(layout.documentInfo) == nil {
            let wasDeleted = try await remote.exists(application.layout.deletedDocumentTombstone(documentID)) != nil
            guard await delegate.shouldCreateDocument(documentID, wasDeleted: wasDeleted) else {
                throw SyncError(
                    .declined,
                    wasDeleted
                        ? "document \(documentID) was deleted and the application chose not to recreate it"
                        : "document \(documentID) does not exist remotely and the application chose not to create it"
                )
            }
            try await createDocument(wasDeleted: wasDeleted)
            created = true
            recreated = wasDeleted
            adoptedKey = nil
        } else if try await remote.exists(layout.changeSets(of: clientID)) != nil {
            ownDirectoryExists = true
        } else if try await remote.exists(layout.deletedClientTombstone(clientID)) != nil {
            guard await delegate.clientWasRemoved(from: documentID) == .keepLocalDataAndRegister else {
                throw SyncError(
                    .clientRemoved,
                    "client \(clientID) was removed from document \(documentID); local data is untouched"
                )
            }
            warnings.append(.clientWasRemoved(documentID))
            try await remote.delete(layout.deletedClientTombstone(clientID))
            adoptedKey = nil
        }
        let key = try await Self.integrityKey(of: layout, format: application.format, through: remote)
        if let adoptedKey, adoptedKey != key {
            guard await delegate.integrityKeyChanged(for: documentID) == .keepLocalDataAndRegister else {
                throw SyncError(
                    .integrityKeyMismatch,
                    "document \(documentID) was recreated since this database registered (its integrity key changed); "
                        + "local data, including unpushed changes, is untouched"
                )
            }
            warnings.append(.documentWasReset(documentID))
        }
        // Recorded before this client's directory exists: a registration cut off in between is
        // decided again (from the missing directory) at the next sync, not mistaken for a plain one.
        let existingRows = try state.markRegistered(
            integrityKey: key, created: created, firstJoin: !created && local.integrityKey == nil,
            rejoining: !created && !ownDirectoryExists && local.integrityKey == key
        )
        if !ownDirectoryExists {
            try await remote.createDirectory(layout.changeSets(of: clientID))
        }
        return DocumentRegistration(
            documentID: documentID,
            clientID: clientID,
            integrityKey: key,
            createdDocument: created,
            recreatedDeletedDocument: recreated,
            existingRows: existingRows,
            warnings: warnings
        )
    }

    /// The document's integrity key (there is one; see ``IntegrityKeyFile`` for which is taken
    /// should a race leave two).
    /// - Throws: ``SyncError/Code/corruptRemoteData`` if there is none.
    static func integrityKey(of layout: DocumentLayout, format: RemoteFormatFile, through remote: CodedRemote) async throws -> String {
        guard let key = try await IntegrityKeyFile.currentKey(of: layout, format: format, through: remote) else {
            throw SyncError(
                .corruptRemoteData,
                "document \(layout.root) has no integrity key in \(IntegrityKeyFile.directory(of: layout, format: format))"
            )
        }
        return key
    }

    /// The document's integrity key, or `nil` if the document (or its key) is gone: one listing.


    private func createDocument(wasDeleted: Bool) async throws {
        let format = application.format
        for directory in layout.skeleton(format: format) {
            try await remote.createDirectory(directory)
        }
        if try await IntegrityKeyFile.currentKey(of: layout, format: format, through: remote) == nil {
            let paths = try await remote.remote { try IntegrityKeyFile.pathsForNewKey(UUID().uuidString, of: layout, format: format) }
            for path in paths {
                try await remote.write(Data(), to: path)
            }
        }
        if wasDeleted {
            try await markOtherClientsRemoved()
            try await remote.delete(application.layout.deletedDocumentTombstone(documentID))
        }
        let info = DocumentInfo(documentID: documentID, description: documentDescription, createdBy: clientID, createdAt: Date())
        try await remote.writeJSON(info, to: layout.documentInfo)
    }

    /// Leaves `DeletedClients/<c>.json` (a copy of the client's device info) for every other client
    /// of the application, so each learns at its next registration that the document was reset.
    private func markOtherClientsRemoved() async throws {
        let clients = try await remote.listIfPresent(application.layout.clientDevices) ?? []
        for item in clients where item.isDirectory {
            guard let other = try? SyncIdentifier(item.name), other != clientID else { continue }
            let device = try await remote.readJSONIfPresent(DeviceInfo.self, from: application.layout.deviceInfo(other))
                ?? DeviceInfo(clientID: other, description: "", registeredAt: Date())
            try await remote.writeJSON(device, to: layout.deletedClientTombstone(other))
        }
    }
}
