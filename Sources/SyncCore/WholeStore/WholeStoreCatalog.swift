import RemoteProtocol

/// The whole-store units of one document, found by listings only (names carry the clock; a
/// unit is complete when its manifest is listed).
struct WholeStoreCatalog: Sendable {
    /// One unit directory.
    struct Unit: Sendable, Hashable {
        var client: SyncIdentifier
        var name: WholeStoreUnitName
        /// Whether its manifest exists (otherwise it is an interrupted upload, ignored by readers).
        var isComplete: Bool
        /// The files listed in its directory (with their stored sizes, when the store reports them).
        var files: [RemoteItem] = []
    }

    let remote: CodedRemote
    let layout: DocumentLayout

    /// Every unit of `client` (or of every client), oldest first: one listing of `WholeStore/`,
    /// one per client directory and one per unit.
    func units(of client: SyncIdentifier? = nil) async throws -> [Unit] {
        var clients: [SyncIdentifier] = []
        if let client {
            clients = [client]
        } else {
            for item in try await remote.listIfPresent(layout.wholeStores) ?? [] where item.isDirectory {
                if let other = try? SyncIdentifier(item.name) { clients.append(other) }
            }
        }
        var units: [Unit] = []
        for client in clients {
            for item in try await remote.listIfPresent(layout.wholeStores(of: client)) ?? [] where item.isDirectory {
                guard let name = WholeStoreUnitName(directoryName: item.name) else { continue }
                let files = try await remote.listIfPresent(layout.wholeStoreUnit(name, of: client)) ?? []
                let complete = files.contains { !$0.isDirectory && $0.name == WholeStoreManifest.manifestFileName }
                units.append(Unit(client: client, name: name, isComplete: complete, files: files))
            }
        }
        return units.sorted { ($0.name, $0.client.rawValue) < ($1.name, $1.client.rawValue) }
    }

    /// The manifest of a complete unit, checked against the unit's name.
    /// - Throws: ``SyncError/Code/unsupportedFormat`` for a unit a newer build wrote in a format
    ///   this one cannot install (readers skip it, vacuum counts it as holding no set);
    ///   ``SyncError/Code/corruptRemoteData`` for a manifest of another unit.
    func manifest(of unit: Unit) async throws -> WholeStoreManifest {
        let path = layout.wholeStoreManifest(unit.name, of: unit.client)
        let manifest = try await remote.readJSON(WholeStoreManifest.self, from: path)
        guard manifest.unit == unit.name.directoryName, manifest.clientID == unit.client else {
            throw SyncError(.corruptRemoteData, "\(path) does not describe the unit it is in")
        }
        guard manifest.version <= WholeStoreManifest.currentVersion else {
            throw SyncError(
                .unsupportedFormat,
                "\(path) is in whole-store format \(manifest.version); this build reads up to \(WholeStoreManifest.currentVersion): upgrade it to use the unit"
            )
        }
        return manifest
    }

    /// The applied-change-set index of a complete unit.
    func index(of unit: Unit) async throws -> WholeStoreIndex {
        try await remote.readJSON(WholeStoreIndex.self, from: layout.wholeStoreFile(WholeStoreManifest.indexFileName, of: unit.name, client: unit.client))
    }
}
