import Foundation
import GRDB

extension ApplicationSyncManager {
    /// Downloads a document's whole store into a **new database file** (TICoreDataSync's
    /// application-level download, for tools and for apps that open a document they never synced).
    ///
    /// The newest usable unit (or `client`'s) is verified as in
    /// ``DocumentSyncManager/downloadWholeStore(from:)``, then written to `destination` as a
    /// database of its own: a fresh RollingSync client id, no change log, and no binding to a
    /// document, so opening a ``LocalStore`` and a ``DocumentSyncManager`` on it (with any client
    /// identifier) registers it and syncs the tail: every change set the store does not contain.
    /// - Parameters:
    ///   - documentID: the document.
    ///   - client: the client whose unit to take; `nil` for the newest usable unit of any client.
    ///   - destination: the new file; it must not exist (nothing is overwritten).
    ///   - configuration: the GRDB configuration the application opens its databases with. The
    ///     store is checked with it, so its `prepareDatabase` must register the collations and
    ///     SQL functions the schema's indexes, views and triggers use; SQLite's defaults suit a
    ///     schema that uses none.
    /// - Returns: the client and unit installed.
    /// - Throws: ``SyncError/Code/noWholeStore`` if the document has no usable unit (or does not
    ///   exist), ``SyncError/Code/corruptRemoteData`` if none verifies, ``SyncError/Code/local`` if
    ///   `destination` exists or cannot be written, or if the schema needs a collation or function
    ///   `configuration` does not define (the message names it); nothing is left at
    ///   `destination` then.
    @discardableResult
    public func downloadWholeStore(
        of documentID: SyncIdentifier, from client: SyncIdentifier? = nil, to destination: URL, configuration: Configuration = Configuration()
    ) async throws -> (client: SyncIdentifier, unit: WholeStoreUnitName) {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw SyncError(.local, "\(destination.path) exists already; choose a new file for the downloaded whole store")
        }
        let application = try await register()
        let layout = application.layout.document(documentID)
        let key = try await IntegrityKeyFile.currentKey(of: layout, format: application.format, through: application.remote)
        let downloader = key.map { WholeStoreDownloader(remote: application.remote, layout: layout, integrityKey: $0, configuration: configuration) }
        let installed = try await downloader?.withNewestUsable(from: client) { unit, url in
            do {
                try FileManager.default.copyItem(at: url, to: destination)
                try LocalStore.adoptSnapshot(at: destination)
                try LocalSyncState.removeBinding(ofDatabaseAt: destination)
            } catch {
                try? FileManager.default.removeItem(at: destination)
                throw SyncError(.local, "cannot write the downloaded whole store to \(destination.path): \(error)", underlying: error)
            }
            return (client: unit.client, unit: unit.name)
        }
        guard let installed else {
            throw SyncError(.noWholeStore, "document \(documentID) has no usable whole store")
        }
        return installed
    }
}
