import Foundation
import RemoteProtocol

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

    /// Succeeds if a collection stands at `path`.
    /// - Throws: `alreadyExists` for a file there, `notFound` if nothing is there.
    func confirmDirectory(_ path: RemotePath) async throws {
        switch try await properties(of: path)?.isCollection {
        case true?:
            return
        case false?:
            throw RemoteStoreError(.alreadyExists, path: path, message: "a file stands where the directory is to be created")
        case nil:
            throw RemoteStoreError(.notFound, path: path, message: "the directory could not be created: its parent is missing")
        }
    }

    /// The error for a PUT or COPY to `path` that the server refused with `status` (409, 404 or
    /// 400): `notFound` if the parent is missing, `notADirectory` if it is a file, else the
    /// status's own error.
    func parentFailure(of path: RemotePath, status: Int, method: String) async throws -> RemoteStoreError {
        guard let parent = path.parent else {
            return RemoteStoreError.httpStatus(status, method: method, path: path)
        }
        switch try await properties(of: parent)?.isCollection {
        case nil:
            return RemoteStoreError(.notFound, path: path, message: "the parent directory \(parent) does not exist")
        case false?:
            return RemoteStoreError(.notADirectory, path: path, message: "the parent \(parent) is a file")
        case true?:
            return RemoteStoreError.httpStatus(status, method: method, path: path)
        }
    }
}
