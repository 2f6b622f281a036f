import Foundation
import RemoteProtocol
import SyncCore

/// Remote paths and inspections of whole-store units of the test document.
extension TestRemote {
    /// `WholeStore/<client>` of the test document.
    static func wholeStores(of client: String) -> String { "\(Paths.document)/WholeStore/\(client)" }

    /// The unit directory names of `client`, sorted.
    func units(of client: String) async throws -> [String] {
        try await names(in: Self.wholeStores(of: client))
    }

    /// The unit directory names of `client` that hold a manifest.
    func completeUnits(of client: String) async throws -> [String] {
        var complete: [String] = []
        for unit in try await units(of: client)
        where try await names(in: "\(Self.wholeStores(of: client))/\(unit)").contains(WholeStoreManifest.manifestFileName) {
            complete.append(unit)
        }
        return complete
    }

    /// Replaces a remote file's bytes (as a damaged disk or a hostile server would).
    func overwrite(_ path: String, with data: Data) async throws {
        try await store.write(data, to: RemotePath(path))
    }

    /// Reads a remote file's raw bytes.
    func raw(_ path: String) async throws -> Data {
        try await store.read(RemotePath(path))
    }
}
