import RemoteProtocol

/// Where each file of one application lives in the remote store.
///
/// The hierarchy keeps TICoreDataSync's names so its users recognise it (see Docs/RemoteFormat.md):
/// ```
/// <appID>/  format.json  ReadMe.txt  ClientDevices/<client>/deviceInfo.json  Encryption/…
///           Information/DeletedDocuments/<doc>.json  Information/DeletedClients/<client>.json
///           Documents/<doc>/…   (see DocumentLayout)
/// ```
package struct ApplicationLayout: Hashable, Sendable {
    /// The application's directory, `<appID>`.
    package let root: RemotePath

    /// The layout of `applicationID`'s data, placed at the store's root.
    package init(applicationID: SyncIdentifier) {
        root = applicationID.pathComponent
    }

    /// `format.json`: the format version, readable without any key.
    package var formatFile: RemotePath { root / "format.json" }
    /// `ReadMe.txt`: a note for people who find the folder.
    package var readMe: RemotePath { root / "ReadMe.txt" }
    /// `format-upgrade.json`: the new `format.json` while a format upgrade replaces it, so that a
    /// replacement a store cannot make atomically is completed by whoever finds `format.json` missing.
    package var formatUpgradeFile: RemotePath { root / "format-upgrade.json" }
    /// `ClientDevices/`: one directory per registered client.
    package var clientDevices: RemotePath { root / "ClientDevices" }
    /// `Encryption/`: the wrapped data key and its derivation parameters, when encrypted.
    package var encryption: RemotePath { root / "Encryption" }
    /// `Information/DeletedDocuments/`: tombstones of deleted documents.
    package var deletedDocuments: RemotePath { root / "Information/DeletedDocuments" }
    /// `Information/DeletedClients/`: tombstones of clients removed from the whole application.
    package var deletedClients: RemotePath { root / "Information/DeletedClients" }
    /// `Documents/`: one directory per document.
    package var documents: RemotePath { root / "Documents" }

    /// The directories created at first registration.
    package var skeleton: [RemotePath] {
        [clientDevices, encryption, deletedDocuments, deletedClients, documents]
    }

    /// `ClientDevices/<client>/`.
    package func clientDirectory(_ client: SyncIdentifier) -> RemotePath {
        clientDevices.appending(client.pathComponent)
    }

    /// `ClientDevices/<client>/deviceInfo.json`.
    package func deviceInfo(_ client: SyncIdentifier) -> RemotePath {
        clientDirectory(client) / "deviceInfo.json"
    }

    /// `Information/DeletedDocuments/<doc>.json`.
    package func deletedDocumentTombstone(_ document: SyncIdentifier) -> RemotePath {
        deletedDocuments / "\(document.rawValue).json"
    }

    /// `Information/DeletedClients/<client>.json`.
    package func deletedClientTombstone(_ client: SyncIdentifier) -> RemotePath {
        deletedClients / "\(client.rawValue).json"
    }

    /// The layout of one document.
    package func document(_ document: SyncIdentifier) -> DocumentLayout {
        DocumentLayout(root: documents.appending(document.pathComponent))
    }
}
