import RemoteProtocol

extension DocumentLayout {
    /// `WholeStore/<client>/<unit>/`: one whole-store unit.
    package func wholeStoreUnit(_ unit: WholeStoreUnitName, of client: SyncIdentifier) -> RemotePath {
        wholeStores(of: client) / unit.directoryName
    }

    /// `WholeStore/<client>/<unit>/manifest.json`: written last; a unit without it is incomplete
    /// and ignored by every reader.
    package func wholeStoreManifest(_ unit: WholeStoreUnitName, of client: SyncIdentifier) -> RemotePath {
        wholeStoreUnit(unit, of: client) / WholeStoreManifest.manifestFileName
    }

    /// `WholeStore/<client>/<unit>/<file>`: one file of a unit.
    package func wholeStoreFile(_ file: String, of unit: WholeStoreUnitName, client: SyncIdentifier) -> RemotePath {
        wholeStoreUnit(unit, of: client) / file
    }

    /// `SyncChanges/<client>/<marker>.vacuumed`.
    package func vacuumMarker(_ marker: VacuumMarkerName, of client: SyncIdentifier) -> RemotePath {
        changeSets(of: client) / marker.fileName
    }
}
