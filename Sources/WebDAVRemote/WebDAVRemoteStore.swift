import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

/// A ``RemoteStore`` on a WebDAV server (RFC 4918), spoken through libcurl.
///
/// Open it with a ``Configuration``, or from a URL such as `webdavs://dav.example.com/sync/app`
/// (HTTPS) or `webdav://127.0.0.1:8080/dav` (plain HTTP); `https://` and `http://` are accepted as
/// well when the store is created directly. The URL's path is the store's root collection, which
/// must exist. The URL form's settings and secrets are described in the backend's documentation
/// (`Docs/Backends/WebDAV.md`): `user`, `auth` (basic/digest/any), `password-env`, `netrc`,
/// `netrc-file`, `ca-file`, timeouts, `retries`, `connections`; the password is the secret
/// ``SecretName/password``.
///
/// How the contract maps onto WebDAV:
/// - ``exists(_:)`` is a `PROPFIND` with `Depth: 0`, ``list(_:)`` one with `Depth: 1`, both with an
///   explicit property list (resourcetype, getcontentlength, getlastmodified, getetag).
/// - ``upload(contentsOf:to:)`` streams the file with `PUT` (with Content-Length) to a temporary
///   name in the target's collection, then `MOVE`s it into place with `Overwrite: T`. Readers never
///   see a partial file. The replacement is **not atomic** on Apache mod_dav_fs or wsgidav: both
///   unlink the old file before renaming the new one (measured with strace), so
///   ``RemoteCapabilities/atomicReplace`` is false. A target whose name holds `?` or `;` is
///   written by a direct `PUT` instead (see `WebDAVEndpoint.destinationHeaderCanCarry(_:)`).
/// - ``download(_:to:)`` streams `GET` to a temporary local file, checks the byte count against
///   Content-Length, then confirms with `PROPFIND` that the resource is a file and still the
///   version the GET described (same ETag and size) before renaming the file into place. Apache
///   takes a GET's Content-Length and ETag from a `stat` made before it opens the file, so a GET
///   racing a replacement can deliver the head of the *new* file under the *old* length; the
///   confirmation catches that and the download starts over.
/// - ``copy(_:to:)`` is a server-side `COPY` to a temporary name, then `MOVE` into place.
/// - ``delete(_:)`` is `DELETE` (a 404 means already gone).
///
/// Every request runs on a pooled libcurl handle owned by an actor on its own thread, never on
/// Swift's cooperative pool. Idempotent requests are retried after dropped connections, timeouts,
/// 423, 429 and 5xx; unexpected or malformed answers throw `invalidResponse` (a garbled 207 only
/// after the PROPFIND was asked again). Refusals that may only mean "not there" (400, 403, 405,
/// and nginx's 500 for a PUT or COPY into a missing collection) are explained by a PROPFIND of the
/// path or its parent before an error is chosen, and a body is never sent again before that.
public final class WebDAVRemoteStore: RemoteStore {
    /// Server-side copy, no atomic replacement, one-second modification times (set by the server).
    public let capabilities = RemoteCapabilities(
        serverSideCopy: true,
        atomicReplace: false,
        modificationTimePrecision: .seconds(1),
        exclusiveCreate: true
    )

    let client: WebDAVClient

    /// How often a download starts over when the file changed while it was read.
    static let consistentDownloadAttempts = 5

    /// The property list every PROPFIND asks for.
    static let propfindBody = Data(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/></D:prop></D:propfind>
        """.utf8
    )

    /// The configuration the store was opened with.
    public let configuration: Configuration

    /// Opens a store for `configuration.url` (`webdav`, `webdavs`, `http` or `https`). No request
    /// is sent until the first call.
    ///
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for an unusable URL or an invalid
    ///   value (see ``Configuration``).
    public init(configuration: Configuration) throws {
        try configuration.validate()
        self.configuration = configuration
        client = WebDAVClient(
            endpoint: try WebDAVEndpoint(url: configuration.url),
            options: configuration.curlOptions,
            connectionCount: configuration.connectionCount,
            retryPolicy: configuration.retryPolicy
        )
    }

    /// How many HTTP requests this store has sent since it was opened, counting every retry and
    /// redirect: a measure of what an operation costs (a `list` is one PROPFIND).
    public var requestCount: Int { client.requestCount }

    /// `PROPFIND` with `Depth: 0`; `nil` for 404, 409, or the 400 (Apache) and 403 (lighttpd) of a
    /// path below a file.
    public func exists(_ path: RemotePath) async throws -> RemoteItem? {
        try await properties(of: path).map { item(for: $0, at: path) }
    }

    /// `MKCOL`, creating missing parents after a 409 and telling a collection from a file after a 405.
    ///
    /// A 405 with nothing at the path (the answer of some servers below a file) is treated like a
    /// 409: the parents are examined, so a file among them gives `notADirectory`, not `notFound`.
    public func createDirectory(at path: RemotePath) async throws {
        guard !path.isRoot else { return }
        switch try await makeCollection(path) {
        case .created:
            return
        case .exists:
            if try await !directoryExists(path) {
                try await createDirectoryAfterParents(path)
            }
        case .parentMissing:
            try await createDirectoryAfterParents(path)
        }
    }

    /// Creates the parents of `path`, then `path` itself with a second MKCOL.
    /// - Throws: `notADirectory` if a file stands among the parents.
    private func createDirectoryAfterParents(_ path: RemotePath) async throws {
        if let parent = path.parent, !parent.isRoot {
            do {
                try await createDirectory(at: parent)
            } catch RemoteStoreError.Code.alreadyExists {
                throw RemoteStoreError(.notADirectory, path: path, message: "a file stands at \(parent)")
            }
        }
        if try await makeCollection(path) != .created, try await !directoryExists(path) {
            throw RemoteStoreError(.notFound, path: path, message: "the directory could not be created: its parent is missing")
        }
    }

    /// `PUT` to a temporary name in the target's collection, then `MOVE` with `Overwrite: T`.
    public func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        let size = try Self.sizeOfLocalFile(localFile, for: path)
        guard let parent = path.parent else {
            throw RemoteStoreError(.isADirectory, path: path, message: "the root is a directory")
        }
        if try await properties(of: path)?.isCollection == true {
            throw RemoteStoreError(.isADirectory, path: path, message: "a directory stands where the file is to be uploaded")
        }
        guard WebDAVEndpoint.destinationHeaderCanCarry(path) else {
            try await put(localFile, size: size, at: client.endpoint.url(for: path, collection: false), for: path)
            return
        }
        let temporary = temporaryURL(in: parent)
        try await withTemporaryResource(temporary) {
            try await put(localFile, size: size, at: temporary, for: path)
            try await moveIntoPlace(temporary, to: path, size: size)
        }
    }

    /// `PUT` to a temporary name, then, holding the target's ``CreationClaim`` (a hidden
    /// collection made with `MKCOL`), `MOVE` with `Overwrite: F`. The `MOVE` alone is not
    /// exclusive: Apache checks `Overwrite` when the request starts and renames over whatever
    /// stands there by then, so two of sixteen racing creators both succeeded; `MKCOL` is one
    /// `mkdir(2)` there (and on nginx and lighttpd), which only one of them can win. Like an
    /// upload, the file is never visible partially. A name whose `Destination` header cannot be
    /// written (`?`, `;`) is `unsupported`.
    /// - Throws: `alreadyExists` when anything stands at `path`, or appears there first.
    public func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        let size = try Self.sizeOfLocalFile(localFile, for: path)
        guard let parent = path.parent, let name = path.components.last, try await properties(of: path) == nil else {
            throw RemoteStoreError(.alreadyExists, path: path, message: "something already exists at this path")
        }
        guard WebDAVEndpoint.destinationHeaderCanCarry(path) else {
            throw RemoteStoreError(.unsupported, path: path, message: "names with '?' or ';' cannot be created exclusively")
        }
        let temporary = temporaryURL(in: parent)
        let destination = client.endpoint.url(for: path, collection: false)
        let claim = CreationClaim(forTargetNamed: name)
        let claimURL = client.endpoint.url(components: parent.components + [claim.name], collection: true)
        let client = client
        try await withTemporaryResource(temporary) {
            try await put(localFile, size: size, at: temporary, for: path)
            try await claim.create(
                at: path,
                targetExists: { try await properties(of: path) != nil },
                claim: {
                    // A server whose own mkdir(2) lost the race answers a refusal of its own
                    // (Apache 403, wsgidav 500): asked once more, a claim that now stands is 405,
                    // and a real refusal stays.
                    let makeClaim = HTTPRequest(method: "MKCOL", url: claimURL)
                    let answers: Set<Int> = [201, 405, 403, 500]
                    var response = try await client.send(makeClaim, for: path, accepting: answers, idempotent: false)
                    if response.status != 201 && response.status != 405 {
                        response = try await client.send(makeClaim, for: path, accepting: answers, idempotent: false)
                    }
                    switch response.status {
                    case 201: return true
                    case 405: return false
                    default: throw RemoteStoreError.httpStatus(response.status, method: "MKCOL", path: path, body: response.body)
                    }
                },
                release: {
                    try await Task {
                        _ = try await client.send(
                            HTTPRequest(method: "DELETE", url: claimURL), for: path, accepting: [200, 202, 204, 404], idempotent: true
                        )
                    }.value
                },
                place: {
                    let response = try await client.send(
                        HTTPRequest(method: "MOVE", url: temporary, headers: ["Destination: \(destination)", "Overwrite: F"]),
                        for: path, accepting: [201, 204, 412], idempotent: false
                    )
                    if response.status == 412 {
                        throw RemoteStoreError(.alreadyExists, path: path, message: "something already exists at this path")
                    }
                }
            )
        }
    }

    /// `GET` streamed to a temporary local file, confirmed by `PROPFIND`, then renamed into place.
    ///
    /// A file replaced while it is read (the MOVE of another client's upload or copy, which both
    /// servers tested run as delete-then-rename) is read again, at most
    /// ``consistentDownloadAttempts`` times in all. Replacement shows as a PROPFIND that describes
    /// another version; as a refused GET although a file stands there (Apache answers 403 when
    /// the file it found vanishes before it opens it); or as a length that does not match its
    /// ETag (wsgidav takes them from the old and the new file). What the last attempt saw is the
    /// error: the refusal, `invalidResponse` for the length, else `unavailable`.
    public func download(_ path: RemotePath, to localFile: URL) async throws {
        try await withPartialFile(for: localFile) { partial in
            var lastFailure: RemoteStoreError?
            for _ in 0..<Self.consistentDownloadAttempts {
                let response: HTTPResponse
                do {
                    response = try await get(path, into: partial)
                } catch let refusal as RemoteStoreError where !refusal.isRetryable && refusal.code != .localFile {
                    // nginx and lighttpd redirect a collection's URL and then refuse the GET (301,
                    // then 403 or 405): what stands there decides the error, not the refusal.
                    switch try await properties(of: path)?.isCollection {
                    case nil: throw RemoteStoreError(.notFound, path: path, message: "no file to download")
                    case true?: throw RemoteStoreError(.isADirectory, path: path, message: "a directory cannot be downloaded")
                    case false?:
                        lastFailure = refusal
                        continue
                    }
                }
                guard let entry = try await properties(of: path) else {
                    throw RemoteStoreError(.notFound, path: path, message: "no file to download")
                }
                if entry.isCollection {
                    throw RemoteStoreError(.isADirectory, path: path, message: "a directory cannot be downloaded")
                }
                guard response.status == 200 else {
                    lastFailure = nil
                    continue
                }
                try Self.checkLength(of: response, at: path)
                switch Self.deliveredVersion(response, entry) {
                case .current:
                    try Self.replace(localFile, with: partial, for: path)
                    return
                case .replaced:
                    lastFailure = nil
                case .sameTagOtherSize:
                    lastFailure = RemoteStoreError(
                        .invalidResponse, path: path,
                        message: "received \(response.receivedByteCount) bytes of a file listed with \(entry.contentLength ?? 0) under the same ETag"
                    )
                }
            }
            throw lastFailure ?? RemoteStoreError(.unavailable, path: path, message: "the file kept changing while it was downloaded")
        }
    }

    /// `GET` streamed to a temporary local file, then renamed into place: no `PROPFIND`, since a
    /// file that is never replaced cannot change between the two. A body shorter than its
    /// `Content-Length` is refused.
    public func downloadImmutableFile(_ path: RemotePath, to localFile: URL) async throws {
        try await withPartialFile(for: localFile) { partial in
            let response = try await get(path, into: partial)
            guard response.status == 200 else {
                throw RemoteStoreError(.notFound, path: path, message: "no file to download")
            }
            try Self.checkLength(of: response, at: path)
            try Self.replace(localFile, with: partial, for: path)
        }
    }

    /// `GET` of `path` streamed into the local file `partial`; 200 and 404 are answers.
    private func get(_ path: RemotePath, into partial: URL) async throws -> HTTPResponse {
        try await client.send(
            HTTPRequest(method: "GET", url: client.endpoint.url(for: path, collection: false), sink: .file(partial)),
            for: path,
            accepting: [200, 404],
            idempotent: true
        )
    }

    /// Runs `body` with a fresh temporary name beside `localFile` to download into; the temporary
    /// file is removed if `body` throws (on success `body` has renamed it into place).
    private func withPartialFile(for localFile: URL, _ body: (URL) async throws -> Void) async throws {
        let partial = localFile.deletingLastPathComponent()
            .appendingPathComponent(".rollsync-download-\(UUID().uuidString)", isDirectory: false)
        do {
            try await body(partial)
        } catch {
            unlink(partial.path)
            throw error
        }
    }

    /// Server-side `COPY` to a temporary name, then `MOVE` into place.
    public func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        guard let sourceEntry = try await properties(of: source) else {
            throw RemoteStoreError(.notFound, path: source, message: "the file to copy does not exist")
        }
        guard !sourceEntry.isCollection else {
            throw RemoteStoreError(.isADirectory, path: source, message: "copying directories is not supported")
        }
        guard source != destination else { return }
        guard let parent = destination.parent, try await properties(of: destination)?.isCollection != true else {
            throw RemoteStoreError(.isADirectory, path: destination, message: "a directory stands at the copy's destination")
        }
        guard WebDAVEndpoint.destinationHeaderCanCarry(destination) else {
            try await copyThroughClient(source, to: destination)
            return
        }
        let temporary = temporaryURL(in: parent)
        try await withTemporaryResource(temporary) {
            try await sendCreating(
                HTTPRequest(
                    method: "COPY",
                    url: client.endpoint.url(for: source, collection: false),
                    headers: ["Destination: \(temporary)", "Overwrite: T", "Depth: 0"]
                ),
                for: destination
            )
            try await moveIntoPlace(temporary, to: destination, size: sourceEntry.contentLength)
        }
    }

    /// `PROPFIND` with `Depth: 1`: one request whatever the number of children.
    public func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        try Self.children(in: try await members(of: directory), of: directory, endpoint: client.endpoint).map { item(for: $0.entry, at: $0.path) }
    }

    /// The temporary files directly inside `directory` (uploads in flight or left by interrupted
    /// ones), with the sizes and modification times the server reports.
    public func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] {
        try Self.temporaryFiles(in: try await members(of: directory), of: directory, endpoint: client.endpoint)
    }

    /// Deletes one temporary file; a missing one is success.
    public func deleteTemporaryFile(_ file: TemporaryFile) async throws {
        guard file.name.hasPrefix(RemotePath.reservedTemporaryPrefix), !file.name.utf8.contains(UInt8(ascii: "/")) else {
            throw RemoteStoreError(.invalidPath, path: file.directory, message: "'\(file.name)' is not the name of a temporary file")
        }
        _ = try await client.send(
            HTTPRequest(method: "DELETE", url: client.endpoint.url(components: file.directory.components + [file.name], collection: false)),
            for: file.directory,
            accepting: [200, 202, 204, 404],
            idempotent: true
        )
    }

    /// The Depth 1 PROPFIND answer for `directory`.
    private func members(of directory: RemotePath) async throws -> [MultistatusEntry] {
        switch try await propfind(directory, collection: true, depth: 1) {
        case .entries(let listed):
            return listed
        case .refused(let status, let body):
            // 404/409 (missing), 400 (Apache) or 403 (lighttpd, for a file named with a trailing
            // slash or anything below a file): the directory's own properties tell which.
            switch try await properties(of: directory)?.isCollection {
            case nil: throw RemoteStoreError(.notFound, path: directory, message: "no directory to list")
            case false: throw RemoteStoreError(.notADirectory, path: directory, message: "a file cannot be listed")
            case true: throw RemoteStoreError.httpStatus(status, method: "PROPFIND", path: directory, body: body)
            }
        }
    }

    /// `DELETE` (with a trailing slash for collections); a missing path is success.
    public func delete(_ path: RemotePath) async throws {
        guard !path.isRoot else {
            throw RemoteStoreError(.invalidPath, path: path, message: "the store's root cannot be deleted")
        }
        // A 207 lists members that could not be deleted, often because a concurrent DELETE removed
        // them first: look again, and delete what is left.
        for _ in 0..<Self.consistentDownloadAttempts {
            guard let entry = try await properties(of: path) else { return }
            let response = try await client.send(
                HTTPRequest(method: "DELETE", url: client.endpoint.url(for: path, collection: entry.isCollection)),
                for: path,
                accepting: [200, 202, 204, 207, 404],
                idempotent: true
            )
            if response.status != 207 { return }
        }
        throw RemoteStoreError(.io, path: path, message: "the server could not delete everything inside the directory")
    }

    /// Closes the pooled connections; later calls fail with `unavailable`.
    public func close() async {
        await client.close()
    }
}
