import Foundation
import RemoteProtocol

extension ApplicationSyncManager {
    /// The application's documents (TICoreDataSync's list of documents): one listing of
    /// `Documents/`, then per document its `documentInfo.json` and one listing of `RecentSyncs/`.
    /// Documents without `documentInfo.json` (being created, or deleted while listing) are skipped.
    /// - Returns: documents sorted by identifier.
    /// - Throws: the errors of ``register()``; ``SyncError/Code/corruptRemoteData`` for an
    ///   unreadable info file.
    public func documents() async throws -> [DocumentSummary] {
        let application = try await register()
        let remote = application.remote
        var documents: [DocumentSummary] = []
        for item in try await remote.listIfPresent(application.layout.documents) ?? [] where item.isDirectory {
            guard let documentID = try? SyncIdentifier(item.name) else { continue }
            let layout = application.layout.document(documentID)
            guard let info = try await remote.readJSONIfPresent(DocumentInfo.self, from: layout.documentInfo) else { continue }
            let lastSync = try await recentSyncs(of: layout, remote).values.max()
            documents.append(
                DocumentSummary(
                    documentID: documentID, description: info.description, userInfo: info.userInfo,
                    createdBy: info.createdBy, createdAt: info.createdAt, lastSyncDate: lastSync
                )
            )
        }
        return documents.sorted { $0.documentID.rawValue < $1.documentID.rawValue }
    }

    /// The application's clients, each with the documents it is registered with: one listing of
    /// `ClientDevices/` and one device-info read per client, plus one listing of `SyncChanges/`
    /// per document.
    /// - Returns: clients sorted by identifier.
    public func clients() async throws -> [ClientSummary] {
        let application = try await register()
        let remote = application.remote
        var documentsByClient: [SyncIdentifier: [SyncIdentifier]] = [:]
        for item in try await remote.listIfPresent(application.layout.documents) ?? [] where item.isDirectory {
            guard let documentID = try? SyncIdentifier(item.name) else { continue }
            for client in try await remote.listIfPresent(application.layout.document(documentID).syncChanges) ?? [] where client.isDirectory {
                if let clientID = try? SyncIdentifier(client.name) {
                    documentsByClient[clientID, default: []].append(documentID)
                }
            }
        }
        var clients: [ClientSummary] = []
        for item in try await remote.listIfPresent(application.layout.clientDevices) ?? [] where item.isDirectory {
            guard let clientID = try? SyncIdentifier(item.name),
                let device = try await remote.readJSONIfPresent(DeviceInfo.self, from: application.layout.deviceInfo(clientID))
            else { continue }
            let documents = (documentsByClient[clientID] ?? []).sorted { $0.rawValue < $1.rawValue }
            clients.append(ClientSummary(device: device, documents: documents))
        }
        return clients.sorted { $0.device.clientID.rawValue < $1.device.clientID.rawValue }
    }

    /// The clients registered with a document (those with a change-set directory), with their last
    /// sync and the date of their newest complete whole store: listings only, plus one device-info
    /// read per client.
    /// - Returns: clients sorted by identifier; empty if the document does not exist.
    public func clients(of documentID: SyncIdentifier) async throws -> [DocumentClientSummary] {
        let application = try await register()
        let remote = application.remote
        let layout = application.layout.document(documentID)
        let syncs = try await recentSyncs(of: layout, remote)
        let units = try await WholeStoreCatalog(remote: remote, layout: layout).units()
        var clients: [DocumentClientSummary] = []
        for item in try await remote.listIfPresent(layout.syncChanges) ?? [] where item.isDirectory {
            guard let clientID = try? SyncIdentifier(item.name) else { continue }
            let device = try await remote.readJSONIfPresent(DeviceInfo.self, from: application.layout.deviceInfo(clientID))
            let sets = try await remote.listIfPresent(layout.changeSets(of: clientID)) ?? []
            clients.append(
                DocumentClientSummary(
                    clientID: clientID,
                    description: device?.description ?? "",
                    lastSyncDate: syncs[clientID],
                    wholeStoreDate: units.last { $0.client == clientID && $0.isComplete }?.name.date,
                    changeSetCount: sets.count { ChangeSetName(fileName: $0.name) != nil }
                )
            )
        }
        return clients.sorted { $0.clientID.rawValue < $1.clientID.rawValue }
    }

    /// Each client's newest last-sync date of a document, from one listing of `RecentSyncs/`.
    func recentSyncs(of layout: DocumentLayout, _ remote: CodedRemote) async throws -> [SyncIdentifier: Date] {
        RecentSyncName.newestByClient(in: try await remote.listIfPresent(layout.recentSyncs) ?? []).mapValues(\.date)
    }
}
