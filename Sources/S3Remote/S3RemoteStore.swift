import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

/// A ``RemoteStore`` in a bucket of S3-compatible object storage (AWS S3, Ceph RGW, MinIO,
/// Garage, Wasabi, Cloudflare R2, Backblaze B2), spoken through libcurl with its own AWS
/// Signature V4 signing.
///
/// Open it from a URL such as `s3://my-bucket/sync/app` (AWS) or
/// `s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&style=path`, or from a
/// typed ``Configuration``. Credentials come from the AWS environment variables or the AWS CLI's
/// shared files, never from the URL (`Docs/Backends/S3.md`).
///
/// How the contract maps onto S3, which has neither directories nor rename
/// (``RemoteCapabilities/implicitDirectories``):
/// - A path `a/b` is the object `<prefix>/a/b`. ``createDirectory(at:)`` writes the empty marker
///   object `<prefix>/a/b/`; a directory exists when its marker or any object below it exists.
///   Uploads and copies into a missing directory succeed and so create it.
/// - ``exists(_:)`` is a `HEAD` of the object, then (if absent) a one-key `ListObjectsV2` below it.
/// - ``list(_:)`` is `ListObjectsV2` with `delimiter=/`, following every page.
/// - ``upload(contentsOf:to:)`` is one `PutObject` (atomic for readers: S3 shows the old or the
///   whole new object) or, above ``Configuration/multipartThreshold``, a multipart upload whose
///   parts stream from the file, aborted on failure or cancellation.
/// - ``createExclusively(contentsOf:at:)`` is a `PutObject` with `If-None-Match: *`.
/// - ``copy(_:to:)`` is `CopyObject`, or multipart copy above 5 GiB.
/// - ``delete(_:)`` deletes the object and every key below it with `DeleteObjects`, 1,000 keys a
///   request.
///
/// Every request runs on a pooled libcurl handle owned by an actor on its own thread, never on
/// Swift's cooperative pool.
public final class S3RemoteStore: RemoteStore {
    /// Server-side copy, atomic replacement, one-second modification times, implicit directories,
    /// exclusive creation.
    public let capabilities = RemoteCapabilities(
        serverSideCopy: true,
        atomicReplace: true,
        modificationTimePrecision: .seconds(1),
        implicitDirectories: true,
        exclusiveCreate: true
    )

    /// The configuration the store was opened with.
    public let configuration: Configuration
    let client: S3Client

    /// Opens a store for `configuration`, reading credentials, region and endpoint defaults from
    /// `environment` and the AWS shared files it names. No request is sent until the first call.
    ///
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for an invalid bucket, endpoint or
    ///   plain-HTTP endpoint that is not allowed, `authenticationFailed` if no credentials are found.
    public init(configuration: Configuration, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard configuration.partSize >= Configuration.minimumPartSize else {
            throw RemoteStoreError(.unsupported, message: "the S3 part size must be at least 5 MiB")
        }
        self.configuration = configuration
        client = S3Client(settings: try ResolvedS3Settings(configuration, environment: environment), configuration: configuration)
    }

    /// How many HTTP requests this store has sent since it was opened, counting every retry.
    public var requestCount: Int { client.requestCount }

    /// How many bytes of response bodies (listings, downloads, error documents) this store has
    /// received since it was opened, counting every retry; headers are not counted.
    public var receivedByteCount: Int { client.receivedByteCount }

    /// The region requests are signed for, after the environment and profile were consulted.
    public var region: String { client.settings.region }
    /// The endpoint requests go to, after the environment and profile were consulted.
    public var endpoint: URL { client.settings.endpoint }

    public func exists(_ path: RemotePath) async throws -> RemoteItem? {
        if path.isRoot { return RemoteItem(path: path, kind: .directory) }
        if let response = try await head(path) {
            return RemoteItem(
                path: path, kind: .file, size: response.contentLength,
                modificationDate: response.headers["last-modified"].flatMap(HTTPDate.parse)
            )
        }
        return try await hasObjects(below: path) ? RemoteItem(path: path, kind: .directory) : nil
    }

    /// Writes the directory's marker object after checking that no file stands at the path or
    /// above it.
    public func createDirectory(at path: RemotePath) async throws {
        guard !path.isRoot else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                if try await self.head(path) != nil {
                    throw RemoteStoreError(.alreadyExists, path: path, message: "a file stands where the directory is to be created")
                }
            }
            for ancestor in path.ancestors {
                group.addTask {
                    if try await self.head(ancestor) != nil {
                        throw RemoteStoreError(.notADirectory, path: path, message: "a file stands at \(ancestor)")
                    }
                }
            }
            try await group.waitForAll()
        }
        _ = try await client.send(
            "PUT", client.key.directory(path), headers: ["Content-Type: application/x-directory"],
            body: .file(URL(fileURLWithPath: "/dev/null"), size: 0), for: path
        )
    }

    public func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
        let size = try Self.sizeOfLocalFile(localFile, for: path)
        try await checkFileCanBeWritten(at: path, directoryCode: .isADirectory)
        if size > configuration.multipartThreshold {
            try await multipartUpload(localFile, size: size, to: path)
        } else {
            _ = try await client.send(
                "PUT", client.key.file(path), headers: ["Content-Type: application/octet-stream"],
                body: .file(localFile, size: size), for: path
            )
        }
    }

    /// `PutObject` with `If-None-Match: *`. A retry after a lost answer that finds the object
    /// present recognises its own earlier attempt by a random `x-amz-meta-rollsync-writer`.
    ///
    /// S3 refuses a conditional write that meets another of the same key in flight with
    /// `409 ConditionalRequestConflict` ("retry"), which is `rateLimited`: that answer is
    /// followed by a `HEAD`, and once another creator's object is there this one has lost
    /// (`alreadyExists`) instead of retrying until it gives up with `rateLimited`. Other
    /// rate-limit answers (`SlowDown`, 429) are retried without a `HEAD`.
    public func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        let size = try Self.sizeOfLocalFile(localFile, for: path)
        guard size <= Configuration.maximumCopySize else {
            throw RemoteStoreError(.unsupported, path: path, message: "files above 5 GiB cannot be created exclusively")
        }
        try await checkFileCanBeWritten(at: path, directoryCode: .alreadyExists)
        let writer = UUID().uuidString.lowercased()
        let client = client
        try await client.retryPolicy.run {
            let response: HTTPResponse
            do {
                response = try await client.send(
                    "PUT", client.key.file(path),
                    headers: ["Content-Type: application/octet-stream", "If-None-Match: *", "x-amz-meta-rollsync-writer: \(writer)"],
                    body: .file(localFile, size: size), for: path, accepting: [200, 412], idempotent: false
                )
            } catch let conflict as RemoteStoreError where (conflict.underlying as? S3ServiceError)?.code == "ConditionalRequestConflict" {
                guard let existing = try await head(path) else { throw conflict }
                if existing.headers["x-amz-meta-rollsync-writer"] == writer { return }
                throw RemoteStoreError(.alreadyExists, path: path, message: "a file already exists at this path", underlying: conflict)
            }
            guard response.status == 412 else { return }
            if try await head(path)?.headers["x-amz-meta-rollsync-writer"] == writer { return }
            throw RemoteStoreError(.alreadyExists, path: path, message: "a file already exists at this path")
        }
    }

    public func download(_ path: RemotePath, to localFile: URL) async throws {
        guard !path.isRoot else {
            throw RemoteStoreError(.isADirectory, path: path, message: "the root is a directory")
        }
        let partial = localFile.deletingLastPathComponent()
            .appendingPathComponent(".rollsync-download-\(UUID().uuidString)", isDirectory: false)
        do {
            let response = try await client.send(
                "GET", client.key.file(path), sink: .file(partial), for: path, accepting: [200, 404]
            )
            if response.status == 404 {
                if try await hasObjects(below: path) {
                    throw RemoteStoreError(.isADirectory, path: path, message: "a directory cannot be downloaded")
                }
                throw RemoteStoreError(.notFound, path: path, message: "no file to download")
            }
            if let announced = response.contentLength, announced != response.receivedByteCount {
                throw RemoteStoreError(
                    .invalidResponse, path: path,
                    message: "received \(response.receivedByteCount) bytes but Content-Length announced \(announced)"
                )
            }
            guard rename(partial.path, localFile.path) == 0 else {
                throw RemoteStoreError(
                    .localFile, path: path,
                    message: "cannot move the download into place at \(localFile.path): \(String(cString: strerror(errno)))"
                )
            }
        } catch {
            unlink(partial.path)
            throw error
        }
    }

    /// `CopyObject` (multipart copy above ``Configuration/copyThreshold``).
    public func copy(_ source: RemotePath, to destination: RemotePath) async throws {
        guard !source.isRoot, !destination.isRoot else {
            throw RemoteStoreError(.isADirectory, path: source.isRoot ? source : destination, message: "the root is a directory")
        }
        guard let sourceObject = try await head(source) else {
            if try await hasObjects(below: source) {
                throw RemoteStoreError(.isADirectory, path: source, message: "copying directories is not supported")
            }
            throw RemoteStoreError(.notFound, path: source, message: "the file to copy does not exist")
        }
        try await checkFileCanBeWritten(at: destination, directoryCode: .isADirectory)
        guard source != destination else { return }
        let size = sourceObject.contentLength ?? 0
        if size > configuration.copyThreshold {
            try await multipartCopy(source, size: size, to: destination)
        } else {
            _ = try await client.send(
                "PUT", client.key.file(destination),
                headers: ["x-amz-copy-source: \(client.copySource(client.key.file(source)))", "x-amz-metadata-directive: REPLACE",
                          "Content-Type: application/octet-stream"],
                for: destination, errorBodyMayHide200: true
            )
        }
    }

    /// `ListObjectsV2` with `delimiter=/`, every page.
    public func list(_ directory: RemotePath) async throws -> [RemoteItem] {
        var items: [RemoteItem] = []
        var sawAnything = false
        var token: String?
        repeat {
            let page = try await listPage(below: directory, delimited: true, continuationToken: token)
            sawAnything = sawAnything || !page.objects.isEmpty || !page.commonPrefixes.isEmpty
            for object in page.objects {
                if let path = client.key.child(named: object.key, in: directory) {
                    items.append(RemoteItem(path: path, kind: .file, size: object.size, modificationDate: object.modified))
                }
            }
            for prefix in page.commonPrefixes {
                if let path = client.key.child(named: prefix, in: directory) {
                    items.append(RemoteItem(path: path, kind: .directory))
                }
            }
            token = page.nextToken
        } while token != nil
        if !sawAnything && !directory.isRoot {
            if try await head(directory) != nil {
                throw RemoteStoreError(.notADirectory, path: directory, message: "a file cannot be listed")
            }
            throw RemoteStoreError(.notFound, path: directory, message: "no directory to list")
        }
        return items
    }

    /// `DeleteObject` of the file, then `DeleteObjects` (1,000 keys a request) of every key below
    /// the path, marker included; a missing path is success.
    public func delete(_ path: RemotePath) async throws {
        guard !path.isRoot else {
            throw RemoteStoreError(.invalidPath, path: path, message: "the store's root cannot be deleted")
        }
        _ = try await client.send("DELETE", client.key.file(path), for: path, accepting: [200, 204, 404])
        var token: String?
        repeat {
            let page = try await listPage(below: path, delimited: false, continuationToken: token)
            try await deleteObjects(page.objects.map(\.key), for: path)
            token = page.nextToken
        } while token != nil
    }

    /// Closes the pooled connections; later calls fail with `unavailable`.
    public func close() async {
        await client.close()
    }
}
