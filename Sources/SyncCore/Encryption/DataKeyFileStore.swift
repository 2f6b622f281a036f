import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps each application's unwrapped data key in a local file, so the password is needed only
/// when a client joins (or after the key changed), not at every launch.
///
/// The file is `<directory>/<appID>.datakey`, JSON with the key identifier and the key, created
/// with permissions `0600` (owner read/write) in a directory created with `0700`, and replaced
/// atomically (written under a temporary name, then renamed).
///
/// **Threat model.** Encryption protects the *remote* copy: the storage provider, anyone on the
/// network path, or anyone holding the remote folder learns names, sizes and times but no content.
/// It does not protect against someone who can read this user's files on the client: they can
/// read the application's SQLite database in clear anyway, and with this file they can also
/// decrypt the remote copy. Choose a directory the application's user alone can read (Application
/// Support, `$XDG_DATA_HOME`). Deleting the file (``remove(applicationID:)``) makes the client ask
/// for the password again; it does not revoke anything remotely.
public struct DataKeyFileStore: Sendable {
    /// The directory holding the key files.
    public let directory: URL

    /// A store of key files in `directory` (created, with permissions `0700`, when first needed).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The key cached for `applicationID`; `nil` if there is none or the file is unreadable (the
    /// client then asks for the password again, which loses nothing).
    func load(applicationID: SyncIdentifier) -> DataKey? {
        guard let data = try? Data(contentsOf: file(for: applicationID)),
            let cached = try? JSONDecoder().decode(CachedKey.self, from: data),
            cached.applicationID == applicationID.rawValue,
            let id = DataKeyID(hex: cached.keyID)
        else {
            return nil
        }
        return DataKey(id: id, bytes: cached.key)
    }

    /// Caches `key` for `applicationID`, replacing any earlier key.
    /// - Throws: ``SyncError/Code/local`` if the directory or file cannot be written.
    func save(_ key: DataKey, applicationID: SyncIdentifier) throws {
        let cached = CachedKey(applicationID: applicationID.rawValue, keyID: key.id.hex, key: Data(key.bytes))
        do {
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            let data = try JSONEncoder().encode(cached)
            let destination = file(for: applicationID)
            let temporary = directory.appendingPathComponent(".\(applicationID.rawValue).\(UUID().uuidString).tmp")
            try Self.writeOwnerOnly(data, to: temporary)
            guard rename(temporary.path, destination.path) == 0 else {
                let code = errno
                unlink(temporary.path)
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
        } catch {
            throw SyncError(.local, "cannot store the data key of \(applicationID) in \(directory.path)", underlying: error)
        }
    }

    /// Deletes the key cached for `applicationID`; succeeds if there is none.
    /// - Throws: ``SyncError/Code/local`` if the file exists and cannot be deleted.
    public func remove(applicationID: SyncIdentifier) throws {
        let url = file(for: applicationID)
        guard FileManager.default.fileExists(atPath: url.path) else {
            return
        }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw SyncError(.local, "cannot delete the cached data key of \(applicationID)", underlying: error)
        }
    }

    /// The key file of `applicationID`.
    package func file(for applicationID: SyncIdentifier) -> URL {
        directory.appendingPathComponent("\(applicationID.rawValue).datakey")
    }

    /// Creates `url` with permissions `0600` (whatever the umask) and writes `data` to it, durably.
    private static func writeOwnerOnly(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            unlink(url.path)
            throw error
        }
    }

    /// The JSON of a key file.
    private struct CachedKey: Codable {
        var applicationID: String
        var keyID: String
        var key: Data
    }
}
