import CryptoPrimitives
import CurlTransport
import Foundation
import RemoteProtocol

/// One page of `ListObjectsV2`.
struct S3ListPage: Sendable {
    struct Object: Sendable {
        var key: String
        var size: Int64
        var modified: Date?
    }

    var objects: [Object] = []
    var commonPrefixes: [String] = []
    /// The token of the next page; `nil` on the last page.
    var nextToken: String?
}

extension S3ListPage {
    /// The page a `ListObjectsV2` answer `body` describes. Entries without a key are skipped; a
    /// missing or unreadable size is 0 and an unreadable date `nil`.
    /// - Throws: `invalidResponse` for a body that is not a `ListBucketResult`, or a truncated
    ///   listing without a continuation token.
    init(parsing body: Data, for path: RemotePath) throws {
        guard let document = S3XMLElement.parse(body), document.name == "ListBucketResult" else {
            throw RemoteStoreError(.invalidResponse, path: path, message: "ListObjectsV2 answered something that is not a listing")
        }
        for contents in document.children("Contents") {
            guard let key = contents.value("Key") else { continue }
            objects.append(
                Object(
                    key: key, size: Int64(contents.value("Size") ?? "") ?? 0,
                    modified: contents.value("LastModified").flatMap(S3RemoteStore.parseISO8601)
                )
            )
        }
        commonPrefixes = document.children("CommonPrefixes").compactMap { $0.value("Prefix") }
        if document.value("IsTruncated") == "true" {
            guard let next = document.value("NextContinuationToken"), !next.isEmpty else {
                throw RemoteStoreError(.invalidResponse, path: path, message: "a truncated listing came without a continuation token")
            }
            nextToken = next
        }
    }
}

extension S3RemoteStore {
    /// `HEAD` of the object at `path`; `nil` if there is none.
    func head(_ path: RemotePath) async throws -> HTTPResponse? {
        let response = try await client.send("HEAD", client.key.file(path), for: path, accepting: [200, 404])
        return response.status == 200 ? response : nil
    }

    /// True if any object (a directory marker or a file) has a key below the directory `path`.
    func hasObjects(below path: RemotePath) async throws -> Bool {
        let response = try await client.send(
            "GET", "", query: [("list-type", "2"), ("prefix", client.key.directory(path)), ("max-keys", "1")], for: path
        )
        guard let document = S3XMLElement.parse(response.body), document.name == "ListBucketResult" else {
            throw RemoteStoreError(.invalidResponse, path: path, message: "ListObjectsV2 answered something that is not a listing")
        }
        return !document.children("Contents").isEmpty || !document.children("CommonPrefixes").isEmpty
    }

    /// One page of the keys below the directory `path`, of at most `keysPerRequest` keys: its
    /// direct children (`delimited`) or every key at any depth.
    func listPage(below path: RemotePath, delimited: Bool, continuationToken: String?) async throws -> S3ListPage {
        var query = [("list-type", "2"), ("prefix", client.key.directory(path)), ("max-keys", "\(configuration.keysPerRequest)")]
        if delimited { query.append(("delimiter", "/")) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try await client.send("GET", "", query: query, for: path)
        return try S3ListPage(parsing: response.body, for: path)
    }

    /// `DeleteObjects` of `keys`, `keysPerRequest` (S3's limit, 1,000) a request, in quiet mode.
    /// - Throws: the first per-key error S3 reports, mapped like an HTTP error.
    func deleteObjects(_ keys: [String], for path: RemotePath) async throws {
        let batchSize = configuration.keysPerRequest
        for start in stride(from: 0, to: keys.count, by: batchSize) {
            let batch = keys[start..<min(start + batchSize, keys.count)]
            let objects = batch.map { "<Object><Key>\(xmlEscaped($0))</Key></Object>" }.joined()
            let body = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>\(objects)</Delete>".utf8)
            let md5 = Data(MD5.hash(body)).base64EncodedString()
            let response = try await client.send(
                "POST", "", query: [("delete", "")], headers: ["Content-MD5: \(md5)"],
                body: .data(body, contentType: "application/xml"), for: path, errorBodyMayHide200: true
            )
            if let failure = S3XMLElement.parse(response.body)?.children("Error").first {
                let serviceError = S3ServiceError(status: 200, code: failure.value("Code"), message: failure.value("Message"))
                throw RemoteStoreError.s3(serviceError, method: "DeleteObjects", path: path, bucket: client.settings.bucket)
            }
        }
    }

    /// Checks, with concurrent requests, that a file may be written at `path`: no file stands at
    /// its parent (`notADirectory`) and no directory at the path itself (`directoryCode`).
    ///
    /// Only the nearest parent is checked (one request), not every ancestor.
    func checkFileCanBeWritten(at path: RemotePath, directoryCode: RemoteStoreError.Code) async throws {
        guard !path.isRoot else {
            throw RemoteStoreError(directoryCode, path: path, message: "the root is a directory")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let parent = path.parent, !parent.isRoot {
                group.addTask {
                    if try await self.head(parent) != nil {
                        throw RemoteStoreError(.notADirectory, path: path, message: "a file stands at \(parent)")
                    }
                }
            }
            group.addTask {
                if try await self.hasObjects(below: path) {
                    throw RemoteStoreError(directoryCode, path: path, message: "a directory stands at this path")
                }
            }
            try await group.waitForAll()
        }
    }

    /// The size of the local regular file to upload.
    /// - Throws: `localFile` if it is missing, unreadable or not a regular file.
    static func sizeOfLocalFile(_ url: URL, for path: RemotePath) throws -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw RemoteStoreError(
                .localFile, path: path, message: "cannot read the local file \(url.path): \(String(cString: strerror(errno)))"
            )
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, access(url.path, R_OK) == 0 else {
            throw RemoteStoreError(.localFile, path: path, message: "the local path \(url.path) is not a readable regular file")
        }
        return Int64(info.st_size)
    }

    /// Parses S3's `2026-11-24T13:34:35.000Z`, with or without fractional seconds, in UTC (`Z`)
    /// or at an offset (`+02:00`); nil for a date it cannot read.
    static func parseISO8601(_ text: String) -> Date? {
        // Foundation before Swift 6.2 (macOS 15's) refuses fractional seconds to a style without
        // them, and the other way round: try both.
        (try? fractionalSeconds.parse(text)) ?? (try? wholeSeconds.parse(text))
    }

    private static let fractionalSeconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()
}
