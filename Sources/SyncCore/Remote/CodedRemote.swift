import Foundation
import RemoteProtocol

/// A remote store seen through a codec: every file written is encoded, every file read is decoded
/// and verified. The synchronisation operations read and write remote files only through this.
///
/// Remote failures are thrown as ``SyncError`` with code ``SyncError/Code/remote`` wrapping the
/// ``RemoteStoreError``; files that fail to decode or parse throw
/// ``SyncError/Code/corruptRemoteData`` naming the path.
struct CodedRemote: Sendable {
    let store: any RemoteStore
    let codec: any RemoteFileCodec

    /// Encodes and uploads a local file.
    func upload(_ localFile: URL, to path: RemotePath) async throws {
        if codec.isIdentity {
            return try await remote { try await store.upload(contentsOf: localFile, to: path) }
        }
        let encoded = try LocalScratchFile()
        defer { encoded.remove() }
        try coding(path) { try codec.encode(localFile, into: encoded.url, for: path) }
        try await remote { try await store.upload(contentsOf: encoded.url, to: path) }
    }

    /// Encodes and uploads a local file into a directory that must exist: where a backend's
    /// directories are implicit (S3), an upload into a removed directory would recreate it
    /// instead of failing, so the directory is looked at first there.
    /// - Throws: ``SyncError`` wrapping ``RemoteStoreError/Code/notFound`` if the directory is gone.
    func upload(_ localFile: URL, intoExistingDirectoryAt path: RemotePath) async throws {
        if store.capabilities.implicitDirectories, let directory = path.parent, try await exists(directory) == nil {
            throw SyncError.remote(RemoteStoreError(.notFound, path: directory, message: "the directory is gone"), of: store)
        }
        try await upload(localFile, to: path)
    }

    /// Downloads and decodes a file to `localFile`; `immutable` for a file written once under a
    /// unique name (see ``RemoteStore/downloadImmutableFile(_:to:)``).
    func download(_ path: RemotePath, to localFile: URL, immutable: Bool = false) async throws {
        func fetch(to file: URL) async throws {
            if immutable {
                try await store.downloadImmutableFile(path, to: file)
            } else {
                try await store.download(path, to: file)
            }
        }
        if codec.isIdentity {
            return try await remote { try await fetch(to: localFile) }
        }
        let encoded = try LocalScratchFile()
        defer { encoded.remove() }
        try await remote { try await fetch(to: encoded.url) }
        try? FileManager.default.removeItem(at: localFile)
        try coding(path) { try codec.decode(encoded.url, into: localFile, for: path) }
    }

    /// Encodes and stores a small file.
    func write(_ data: Data, to path: RemotePath) async throws {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        do {
            try data.write(to: scratch.url)
        } catch {
            throw SyncError(.local, "cannot write a temporary file for \(path)", underlying: error)
        }
        try await upload(scratch.url, to: path)
    }

    /// Encodes `value` as plain JSON (this remote's codec is not applied: meant for the plain
    /// files of a new application) and creates it at `path` only if nothing is there, where the
    /// store can (``RemoteCapabilities/exclusiveCreate``); elsewhere it is written as usual.
    /// Returns false if another client created the file first.
    func createJSONExclusively(_ value: some Encodable, at path: RemotePath) async throws -> Bool {
        guard store.capabilities.exclusiveCreate else {
            try await writeJSON(value, to: path)
            return true
        }
        let data: Data
        do {
            data = try Self.encoder.encode(value)
        } catch {
            throw SyncError(.local, "cannot encode \(path)", underlying: error)
        }
        do {
            try await remote { try await store.createExclusively(data, at: path) }
            return true
        } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .alreadyExists {
            return false
        } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .unsupported {
            try await writeJSON(value, to: path)
            return true
        }
    }

    /// Encodes `value` as JSON and stores it at `path`.
    func writeJSON(_ value: some Encodable, to path: RemotePath) async throws {
        let data: Data
        do {
            data = try Self.encoder.encode(value)
        } catch {
            throw SyncError(.local, "cannot encode \(path)", underlying: error)
        }
        try await write(data, to: path)
    }

    /// Reads and decodes the JSON file at `path`.
    func readJSON<Value: Decodable>(_ type: Value.Type, from path: RemotePath) async throws -> Value {
        try Self.decodeJSON(type, from: try await read(path), at: path)
    }

    /// Downloads and decodes a small file.
    func read(_ path: RemotePath) async throws -> Data {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        try await download(path, to: scratch.url)
        do {
            return try Data(contentsOf: scratch.url)
        } catch {
            throw SyncError(.local, "cannot read a temporary file for \(path)", underlying: error)
        }
    }

    /// Downloads and decodes a small file; `nil` if there is no such file.
    func readIfPresent(_ path: RemotePath) async throws -> Data? {
        do {
            return try await read(path)
        } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
            return nil
        }
    }

    /// Decodes JSON read from `path`, throwing ``SyncError/Code/corruptRemoteData`` naming it.
    static func decodeJSON<Value: Decodable>(_ type: Value.Type, from data: Data, at path: RemotePath) throws -> Value {
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw SyncError(.corruptRemoteData, "the remote file \(path) is not a valid \(type)", underlying: error)
        }
    }

    /// Describes the item at `path`, or `nil`.
    func exists(_ path: RemotePath) async throws -> RemoteItem? {
        try await remote { try await store.exists(path) }
    }

    /// Lists a directory; `nil` if it does not exist.
    func listIfPresent(_ directory: RemotePath) async throws -> [RemoteItem]? {
        do {
            return try await store.list(directory)
        } catch RemoteStoreError.Code.notFound {
            return nil
        } catch let error as RemoteStoreError {
            throw SyncError.remote(error, of: store)
        }
    }

    /// Creates a directory and its missing parents.
    func createDirectory(_ path: RemotePath) async throws {
        try await remote { try await store.createDirectory(at: path) }
    }

    /// Deletes a file or directory; success if already gone.
    func delete(_ path: RemotePath) async throws {
        try await remote { try await store.delete(path) }
    }

    /// Reads and decodes the JSON file at `path`; `nil` if there is no such file.
    func readJSONIfPresent<Value: Decodable>(_ type: Value.Type, from path: RemotePath) async throws -> Value? {
        try await readIfPresent(path).map { try Self.decodeJSON(type, from: $0, at: path) }
    }

    /// The same remote data seen through another store (for example a counting decorator of
    /// this one's store).
    func replacingStore(_ other: any RemoteStore) -> CodedRemote {
        CodedRemote(store: other, codec: codec)
    }

    /// Runs a remote call, wrapping its ``RemoteStoreError`` in a ``SyncError``.
    func remote<Result>(_ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch let error as RemoteStoreError {
            throw SyncError.remote(error, of: store)
        }
    }

    private func coding(_ path: RemotePath, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.corruptRemoteData, "the remote file \(path) could not be decoded", underlying: error)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
