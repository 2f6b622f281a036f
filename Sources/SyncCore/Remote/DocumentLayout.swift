import RemoteProtocol

/// Where each file of one document lives in the remote store.
///
/// ```
/// Documents/<doc>/ documentInfo.json  SyncChanges/<client>/<name>.syncchg
///                  RecentSyncs/<client>@<time>@<newest set>.recentsync  RecentSyncs/<key>.integritykey
///                  WholeStore/<client>/…  DeletedClients/<client>.json
///                  IntegrityKey/<key>   (format 1 only; see ``IntegrityKeyFile``)
/// ```
/// Every data file is written once under a unique name and never modified; small facts (a clock,
/// a time, a key) live in names so a single listing answers questions without downloads.
package struct DocumentLayout: Hashable, Sendable {
    /// The document's directory, `<appID>/Documents/<doc>`.
    package let root: RemotePath

    /// The layout of the document directory `root`.
    package init(root: RemotePath) {
        self.root = root
    }

    /// `documentInfo.json`: identifier, description, user info and creator.
    package var documentInfo: RemotePath { root / "documentInfo.json" }
    /// `IntegrityKey/` (format 1): holds one empty file whose name is the document's integrity key.
    package var integrityKeys: RemotePath { root / "IntegrityKey" }
    /// `SyncChanges/`: one directory of change sets per client.
    package var syncChanges: RemotePath { root / "SyncChanges" }
    /// `RecentSyncs/`: one marker per client named after the client and its last sync
    /// (see ``RecentSyncName``), so one listing tells when every client last synced.
    package var recentSyncs: RemotePath { root / "RecentSyncs" }
    /// `WholeStore/`: whole-store units, one directory per client.
    package var wholeStores: RemotePath { root / "WholeStore" }
    /// `DeletedClients/`: tombstones of clients removed from this document.
    package var deletedClients: RemotePath { root / "DeletedClients" }

    /// The directories created with a document of `format`: every directory a document of that
    /// format has directly under its root (format 1's key directory too, in an application
    /// upgraded from format 1).
    func skeleton(format: RemoteFormatFile) -> [RemotePath] {
        (IntegrityKeyFile.keepsFormat1Key(format) ? [integrityKeys] : []) + [syncChanges, recentSyncs, wholeStores, deletedClients]
    }

    /// `SyncChanges/<client>/`.
    package func changeSets(of client: SyncIdentifier) -> RemotePath {
        syncChanges.appending(client.pathComponent)
    }

    /// `SyncChanges/<client>/<name>`.
    package func changeSet(_ name: ChangeSetName, of client: SyncIdentifier) -> RemotePath {
        changeSets(of: client) / name.fileName
    }

    /// `RecentSyncs/<client>@<time>.recentsync`.
    package func recentSync(_ name: RecentSyncName) -> RemotePath {
        recentSyncs / name.fileName
    }

    /// `WholeStore/<client>/`.
    package func wholeStores(of client: SyncIdentifier) -> RemotePath {
        wholeStores.appending(client.pathComponent)
    }

    /// `DeletedClients/<client>.json`.
    package func deletedClientTombstone(_ client: SyncIdentifier) -> RemotePath {
        deletedClients / "\(client.rawValue).json"
    }
}
