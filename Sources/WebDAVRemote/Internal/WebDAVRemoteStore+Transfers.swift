import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension WebDAVRemoteStore {
    /// A fresh URL for a temporary file in `directory` (its name starts with
    /// ``RemotePath/reservedTemporaryPrefix``, so listings hide it).
    func temporaryURL(in directory: RemotePath) -> String {
        client.endpoint.url(
            components: directory.components + [RemotePath.reservedTemporaryPrefix + UUID().uuidString],
            collection: false
        )
    }

    /// Runs `body`, which creates the temporary resource at `url`; if it fails or is cancelled the
    /// resource is deleted (by a request that the cancellation does not stop) before the error is
    /// rethrown.
    func withTemporaryResource(_ url: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let client = client
            await Task {
                _ = try? await client.send(
                    HTTPRequest(method: "DELETE", url: url),
                    for: nil,
                    accepting: [200, 202, 204, 404],
                    idempotent: true
                )
            }.value
            throw error
        }
    }

    /// PUTs the local file to `url` (a temporary name or, when no MOVE can follow, the target).
    /// - Throws: `notFound` or `notADirectory` when the parent is missing or a file (see
    ///   ``sendCreating(_:for:)``).
    func put(_ localFile: URL, size: Int64, at url: String, for path: RemotePath) async throws {
        try await sendCreating(HTTPRequest(method: "PUT", url: url, body: .file(localFile, size: size)), for: path)
    }

    /// MOVEs the temporary file at `temporary` onto `path`, replacing what is there.
    ///
    /// The point of no return: once the MOVE is sent the call completes even if the task is
    /// cancelled, since the server may already have replaced the target (a cancelled upload must
    /// either leave the old content or complete).
    ///
    /// A MOVE is not idempotent, yet it is retried under the store's policy like the other
    /// requests, and libcurl itself sends a request again on a fresh connection when a reused one
    /// died before any answer: after a connection that dropped or stalled, the server may or may
    /// not have moved the file. A MOVE that finds its source (a unique temporary name) gone
    /// therefore checks the target: a file of `size` bytes there means an earlier MOVE went
    /// through; otherwise the 404 stands (`notFound`).
    func moveIntoPlace(_ temporary: String, to path: RemotePath, size: Int64?) async throws {
        try Task.checkCancellation()
        let client = client
        let destination = client.endpoint.url(for: path, collection: false)
        try await Task {
            try await client.retryPolicy.run {
                let response = try await client.send(
                    HTTPRequest(method: "MOVE", url: temporary, headers: ["Destination: \(destination)", "Overwrite: T"]),
                    for: path,
                    accepting: [201, 204, 404],
                    idempotent: false
                )
                guard response.status == 404 else { return }
                if let entry = try await properties(of: path), !entry.isCollection, size == nil || entry.contentLength == size {
                    return
                }
                throw RemoteStoreError.httpStatus(response.status, method: "MOVE", path: path, body: response.body)
            }
        }.value
    }

    /// Checks that a GET delivered as many bytes as its Content-Length announced.
    /// - Throws: `invalidResponse` on a mismatch.
    static func checkLength(of response: HTTPResponse, at path: RemotePath) throws {
        if let announced = response.contentLength, announced != response.receivedByteCount {
            throw RemoteStoreError(
                .invalidResponse,
                path: path,
                message: "received \(response.receivedByteCount) bytes but Content-Length announced \(announced)"
            )
        }
    }

    /// What a PROPFIND made after a GET says of the version the GET delivered.
    enum DeliveredVersion: Equatable {
        /// The version `entry` describes: the same size and, when both carry one, the same ETag.
        case current
        /// Another one: the file changed in between (the download should start over).
        case replaced
        /// The same ETag with another size. Either the server sent a wrong length, or (wsgidav)
        /// it took the length from the old file and the ETag from the new one, which had
        /// replaced it in between: a download that starts over tells the two apart.
        case sameTagOtherSize
    }

    /// Compares the GET `response` with `entry`, a PROPFIND of the file made after it.
    static func deliveredVersion(_ response: HTTPResponse, _ entry: MultistatusEntry) -> DeliveredVersion {
        let sameSize = entry.contentLength.map { $0 == response.receivedByteCount } ?? true
        guard let fetchedTag = normalized(etag: response.headers["etag"]), let listedTag = normalized(etag: entry.etag) else {
            return sameSize ? .current : .replaced
        }
        switch (fetchedTag == listedTag, sameSize) {
        case (true, true): return .current
        case (true, false): return .sameTagOtherSize
        case (false, _): return .replaced
        }
    }

    /// An ETag without the weak marker and quotes (servers differ: `W/"…"`, `"…"`, bare).
    private static func normalized(etag: String?) -> String? {
        guard var tag = etag?.trimmingCharacters(in: .whitespaces), !tag.isEmpty else { return nil }
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        return tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    /// The size of the local regular file to upload.
    /// - Throws: `localFile` if it is missing, unreadable or not a regular file.
    static func sizeOfLocalFile(_ url: URL, for path: RemotePath) throws -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw RemoteStoreError(
                .localFile,
                path: path,
                message: "cannot read the local file \(url.path): \(String(cString: strerror(errno)))"
            )
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw RemoteStoreError(.localFile, path: path, message: "the local path \(url.path) is not a regular file")
        }
        guard access(url.path, R_OK) == 0 else {
            throw RemoteStoreError(.localFile, path: path, message: "the local file \(url.path) is not readable")
        }
        return Int64(info.st_size)
    }

    /// Renames the finished download `partial` to `localFile`, replacing it.
    static func replace(_ localFile: URL, with partial: URL, for path: RemotePath) throws {
        guard rename(partial.path, localFile.path) == 0 else {
            throw RemoteStoreError(
                .localFile,
                path: path,
                message: "cannot move the download into place at \(localFile.path): \(String(cString: strerror(errno)))"
            )
        }
    }
}
