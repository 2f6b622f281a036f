import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension WebDAVRemoteStore {
    /// What a MKCOL achieved, after folding the status variants of real servers together.
    enum MakeCollectionOutcome {
        /// 201 (also what rclone answers for an existing collection).
        case created
        /// 405: something already exists at the URL (a collection or a file).
        case exists
        /// 409 (the standard), 404 or 400 (Apache, for a file in the way): the parent is missing
        /// or is not a collection.
        case parentMissing
    }

    /// Sends MKCOL for `path` (with a trailing slash).
    func makeCollection(_ path: RemotePath) async throws -> MakeCollectionOutcome {
        let response = try await client.send(
            HTTPRequest(method: "MKCOL", url: client.endpoint.url(for: path, collection: true)),
            for: path,
            accepting: [201, 405, 400, 404, 409],
            idempotent: true
        )
        switch response.status {
        case 201: return .created
        case 405: return .exists
        default: return .parentMissing
        }
    }

    /// True if a collection stands at `path`, false if nothing does.
    /// - Throws: `alreadyExists` for a file there.
    func directoryExists(_ path: RemotePath) async throws -> Bool {
        switch try await properties(of: path)?.isCollection {
        case true?:
            return true
        case false?:
            throw RemoteStoreError(.alreadyExists, path: path, message: "a file stands where the directory is to be created")
        case nil:
            return false
        }
    }

    /// The statuses a PUT or COPY that creates a resource may answer besides success, each
    /// explained by ``parentFailure(of:status:method:)`` before anything is retried: 409 (the
    /// standard for a missing parent), 404, 400 (Apache below a file), 403 (lighttpd below a file)
    /// and the 5xx that nginx answers for a missing parent (500) or a busy server may.
    static let creationRefusals: Set<Int> = [400, 403, 404, 409, 500, 502, 503, 504]

    /// Sends `request`, a PUT of a body or a COPY that creates the resource for `path`, and
    /// succeeds on 2xx.
    ///
    /// A refusal is explained by looking at the parent first: `notFound` if it is missing and
    /// `notADirectory` if it is a file, without sending the request again (nginx answers 500 for
    /// a missing parent, which a blind retry would answer three more times, re-sending the whole
    /// body each time). Only a failure with the parent in place is retried under the store's
    /// policy, as are dropped connections and timeouts.
    func sendCreating(_ request: HTTPRequest, for path: RemotePath) async throws {
        let client = client
        // One retry loop for both kinds of failure: the request itself is sent without retries.
        try await client.retryPolicy.run {
            let response = try await client.send(
                request, for: path, accepting: Self.creationRefusals.union(200..<300), idempotent: false
            )
            if !response.isSuccess {
                throw try await parentFailure(of: path, status: response.status, method: request.method, body: response.body)
            }
        }
    }

    /// The error for a PUT or COPY to `path` that the server refused with `status`: `notFound` if
    /// the parent is missing, `notADirectory` if it is a file, else the status's own error
    /// (retryable for a 5xx).
    func parentFailure(of path: RemotePath, status: Int, method: String, body: Data) async throws -> RemoteStoreError {
        guard let parent = path.parent else {
            return RemoteStoreError.httpStatus(status, method: method, path: path, body: body)
        }
        switch try await properties(of: parent)?.isCollection {
        case nil:
            return RemoteStoreError(.notFound, path: path, message: "the parent directory \(parent) does not exist")
        case false?:
            return RemoteStoreError(.notADirectory, path: path, message: "the parent \(parent) is a file")
        case true?:
            return RemoteStoreError.httpStatus(status, method: method, path: path, body: body)
        }
    }
}
