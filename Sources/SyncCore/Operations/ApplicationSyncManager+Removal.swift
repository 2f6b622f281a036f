import Foundation
import RemoteProtocol

extension ApplicationSyncManager {
    /// Removes another client from a document (TICoreDataSync's client deletion).
    ///
    /// Order, each step safe to repeat: `DeletedClients/<client>.json` (a copy of its device info)
    /// is written **first**, then its last-sync markers, change sets and whole stores are deleted
    /// (and markers once more, in case it synced meanwhile).
    /// At its next sync the removed client finds its directory gone and the tombstone: its
    /// ``DocumentSyncDelegate/clientWasRemoved(from:)`` decides whether it registers again
    /// (keeping its local data and unpushed changes, re-based on the newest whole store) or stops
    /// with ``SyncError/Code/clientRemoved``.
    ///
    /// Change sets of the removed client that some client had not applied yet are missing there
    /// until the removed client syncs again: it then registers again and publishes once more,
    /// with their original clocks, every write of its own that still stands in its database, and
    /// the rows only its whole stores carried (``SyncWarning/clientWasRemoved(_:)``; later writes
    /// of other clients still win). A client that never syncs again takes them with it: remove
    /// clients that are gone for good, or let them sync first.
    /// - Throws: ``SyncError/Code/declined`` for this client itself (a client leaves by no longer
    ///   syncing, or by deleting the document); remote errors. A missing document is not an error.
    public func removeClient(_ client: SyncIdentifier, from documentID: SyncIdentifier) async throws {
        guard client != device.clientID else {
            throw SyncError(.declined, "client \(client) cannot remove itself from document \(documentID)")
        }
        let application = try await register()
        try await removeClient(client, from: application.layout.document(documentID), application)
    }

    /// Removes a client from the whole application: `Information/DeletedClients/<client>.json` is
    /// written first, then the client is removed from every document (as
    /// ``removeClient(_:from:)``), then its `ClientDevices/<client>/` is deleted.
    ///
    /// If the removed client syncs again, it registers with the application anew (the tombstone
    /// is then deleted) and each document's tombstone gives its delegate the decision.
    /// - Throws: ``SyncError/Code/declined`` for this client itself; remote errors.
    public func removeClientFromApplication(_ client: SyncIdentifier) async throws {
        guard client != device.clientID else {
            throw SyncError(.declined, "client \(client) cannot remove itself from the application")
        }
        let application = try await register()
        let remote = application.remote
        let device = try await remote.readJSONIfPresent(DeviceInfo.self, from: application.layout.deviceInfo(client))
            ?? DeviceInfo(clientID: client, description: "", registeredAt: Date())
        try await remote.writeJSON(device, to: application.layout.deletedClientTombstone(client))
        for item in try await remote.listIfPresent(application.layout.documents) ?? [] where item.isDirectory {
            guard let documentID = try? SyncIdentifier(item.name) else { continue }
            try await removeClient(client, from: application.layout.document(documentID), application)
        }
        try await remote.delete(application.layout.clientDirectory(client))
    }

    /// Deletes a document: `Information/DeletedDocuments/<doc>.json` (a copy of its info) is
    /// written first, then `Documents/<doc>/` is deleted. A client that syncs it later learns it was
    /// deleted; its ``DocumentSyncDelegate/shouldCreateDocument(_:wasDeleted:)`` decides whether
    /// to recreate it (that client then uploads a whole store, and every other client, finding itself
    /// removed from the recreated document, re-bases on it). Deleting a missing document does nothing.
    public func deleteDocument(_ documentID: SyncIdentifier) async throws {
        let application = try await register()
        let remote = application.remote
        let layout = application.layout.document(documentID)
        guard let info = try await remote.readJSONIfPresent(DocumentInfo.self, from: layout.documentInfo) else {
            if try await remote.exists(layout.root) != nil {
                try await remote.delete(layout.root)
            }
            return
        }
        try await remote.writeJSON(info, to: application.layout.deletedDocumentTombstone(documentID))
        try await remote.delete(layout.root)
    }

    /// Deletes every remote file of the application (its whole directory), and forgets this
    /// client's registration. Every client, this one included, finds the application missing at
    /// its next sync and creates it again from its local data. Irreversible.
    ///
    /// The registered clients go first: a deletion cut off later leaves no `format.json` beside
    /// registered clients, which registration refuses as damaged rather than creating anew.
    public func removeAllRemoteData() async throws {
        let layout = ApplicationLayout(applicationID: applicationID)
        do {
            try await store.delete(layout.clientDevices)
            try await store.delete(layout.root)
        } catch let error as RemoteStoreError {
            throw SyncError.remote(error, of: store)
        }
        forgetRegistration()
    }

    private func removeClient(_ client: SyncIdentifier, from layout: DocumentLayout, _ application: ApplicationRegistration) async throws {
        let remote = application.remote
        guard try await remote.exists(layout.documentInfo) != nil else { return }
        let device = try await remote.readJSONIfPresent(DeviceInfo.self, from: application.layout.deviceInfo(client))
            ?? DeviceInfo(clientID: client, description: "", registeredAt: Date())
        try await remote.writeJSON(device, to: layout.deletedClientTombstone(client))
        // Markers go first: a client with a marker but no directory would be skipped by readers
        // of format 2 while it thinks it is registered. They go again last, in case the removed
        // client synced meanwhile (it then learns of the removal at its next push).
        try await deleteMarkers(of: client, in: layout, remote)
        try await remote.delete(layout.changeSets(of: client))
        try await remote.delete(layout.wholeStores(of: client))
        try await deleteMarkers(of: client, in: layout, remote)
    }

    private func deleteMarkers(of client: SyncIdentifier, in layout: DocumentLayout, _ remote: CodedRemote) async throws {
        for item in try await remote.listIfPresent(layout.recentSyncs) ?? [] where RecentSyncName(fileName: item.name)?.clientID == client {
            try await remote.delete(layout.recentSyncs / item.name)
        }
    }
}
