import Foundation
import RemoteProtocol

/// The wrapped data keys in `<appID>/Encryption/` of one application.
///
/// Key files are plain JSON (never encrypted: a client needs them before it has a key). Following
/// the remote rules, a key file is written once under a unique name and never modified; a password
/// change writes a new file, then deletes the older ones.
struct RemoteKeyDirectory: Sendable {
    let layout: ApplicationLayout
    let applicationID: SyncIdentifier
    private let plain: CodedRemote

    init(store: any RemoteStore, applicationID: SyncIdentifier) {
        self.applicationID = applicationID
        layout = ApplicationLayout(applicationID: applicationID)
        plain = CodedRemote(store: store, codec: PlaintextCodec())
    }

    /// The name of the current key file: the newest (highest generation, then name) of the data
    /// key `dataKeyID` when given (what `format.json` records), else of any key; `nil` if there
    /// is none. One `list` request.
    func currentName(of dataKeyID: String? = nil) async throws -> WrappedKeyName? {
        try await names().filter { dataKeyID == nil || $0.keyID.hex == dataKeyID }.max()
    }

    /// The data key id `format.json` records; `nil` when it records none (written before the
    /// field existed) or does not exist.
    func recordedDataKeyID() async throws -> String? {
        try await RemoteFormatFile.read(at: layout.formatFile, from: plain)?.dataKeyID
    }

    /// Reads and checks the key file `name`.
    /// - Throws: ``SyncError/Code/corruptRemoteData`` if it is not a wrapped key or disagrees with
    ///   its name, ``SyncError/Code/unsupportedFormat`` for a newer version,
    ///   ``SyncError/Code/remote`` for storage failures.
    func read(_ name: WrappedKeyName) async throws -> WrappedDataKey {
        let path = self.path(of: name)
        let wrapped = try VersionedFile.decode(
            WrappedDataKey.self, from: try await plain.read(path), at: path, expected: WrappedDataKey.formatName,
            readable: WrappedDataKey.currentVersion
        )
        guard wrapped.keyID == name.keyID.hex, wrapped.generation == name.generation else {
            throw SyncError(.corruptRemoteData, "the key file \(path) does not hold the key and generation its name gives")
        }
        return wrapped
    }

    /// Writes `wrapped` as a new key file, then (if `replacingOlder`) deletes every older one;
    /// returns the new name.
    @discardableResult
    func publish(_ wrapped: WrappedDataKey, keyID: DataKeyID, replacingOlder: Bool = true) async throws -> WrappedKeyName {
        let name = WrappedKeyName(generation: wrapped.generation, keyID: keyID)
        try await plain.createDirectory(layout.encryption)
        try await plain.writeJSON(wrapped, to: path(of: name))
        if replacingOlder { try await deleteKeys { $0 < name } }
        return name
    }

    /// Deletes the key files whose names satisfy `condition`.
    func deleteKeys(where condition: (WrappedKeyName) -> Bool) async throws {
        for name in try await names() where condition(name) {
            try await plain.delete(path(of: name))
        }
    }

    /// The path of the key file `name`.
    func path(of name: WrappedKeyName) -> RemotePath {
        layout.encryption / name.fileName
    }

    /// The names of every key file.
    func names() async throws -> [WrappedKeyName] {
        let items = try await plain.listIfPresent(layout.encryption) ?? []
        return items.filter { !$0.isDirectory }.compactMap { WrappedKeyName(fileName: $0.name) }
    }
}
