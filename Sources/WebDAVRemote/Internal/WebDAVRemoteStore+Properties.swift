import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport

extension WebDAVRemoteStore {
    /// The largest PROPFIND answer held in memory (about 150,000 entries of a Depth 1 listing).
    static let propfindBodyLimit = 64 * 1024 * 1024

    /// What a PROPFIND answered: the entries of a well-formed 207, or another status for the
    /// caller to interpret.
    enum PropfindAnswer {
        /// A 207 whose multistatus body was read.
        case entries([MultistatusEntry])
        /// 400, 403, 404 or 409, with the body (for error messages).
        case refused(status: Int, body: Data)
    }

    /// The statuses a PROPFIND answer may have besides 207, all of which the callers explain by
    /// looking at the path or its parent: 404 and 409 (missing), 400 (Apache, below a file) and 403
    /// (lighttpd, below a file or a file named with a trailing slash).
    static let propfindRefusals: Set<Int> = [400, 403, 404, 409]

    /// Sends a PROPFIND with an explicit property list and the given depth, and reads the answer.
    ///
    /// A 207 whose body is not a well-formed multistatus (garbage after the status line, a body
    /// cut short by a proxy) is asked again under the store's retry policy, like a dropped
    /// connection; if every attempt is garbled, the last `invalidResponse` is thrown.
    func propfind(_ path: RemotePath, collection: Bool, depth: Int) async throws -> PropfindAnswer {
        let request = HTTPRequest(
            method: "PROPFIND",
            url: client.endpoint.url(for: path, collection: collection || path.isRoot),
            headers: ["Depth: \(depth)"],
            body: .data(Self.propfindBody, contentType: "application/xml; charset=utf-8"),
            sink: .memory(limit: Self.propfindBodyLimit)
        )
        let client = client
        // One retry loop for both kinds of failure: the request itself is sent without retries.
        return try await client.retryPolicy.run(
            {
                let response = try await client.send(
                    request, for: path, accepting: Self.propfindRefusals.union([207]), idempotent: false
                )
                guard response.status == 207 else { return .refused(status: response.status, body: response.body) }
                return .entries(try MultistatusParser.parse(response.body, path: path))
            },
            retryingWhen: { $0.isRetryable || $0.underlying is MultistatusParser.Malformed }
        )
    }

    /// The properties of the resource at `path`, or `nil` if there is none (including when an
    /// ancestor is a file).
    ///
    /// A refusal that may only mean "not here" is told apart from a real one by looking at the
    /// parent: Apache answers 400 and lighttpd 403 for a path below a file. When the parent is a
    /// collection, the refusal stands (`permissionDenied` for 403, `invalidResponse` for 400).
    func properties(of path: RemotePath) async throws -> MultistatusEntry? {
        switch try await propfind(path, collection: false, depth: 0) {
        case .entries(let entries):
            let endpoint = client.endpoint
            guard let entry = entries.first(where: { endpoint.relativeComponents(ofHref: $0.href) == path.components }) else {
                throw RemoteStoreError(
                    .invalidResponse,
                    path: path,
                    message: "the PROPFIND response does not describe the requested resource"
                )
            }
            if let status = entry.status, !(200..<300).contains(status) { return nil }
            return entry
        case .refused(let status, let body) where status == 400 || status == 403:
            guard let parent = path.parent, try await properties(of: parent)?.isCollection != true else {
                throw RemoteStoreError.httpStatus(status, method: "PROPFIND", path: path, body: body)
            }
            return nil
        case .refused:
            return nil
        }
    }

    /// The item a multistatus entry describes.
    func item(for entry: MultistatusEntry, at path: RemotePath) -> RemoteItem {
        RemoteItem(
            path: path,
            kind: entry.isCollection ? .directory : .file,
            size: entry.isCollection ? nil : entry.contentLength,
            modificationDate: entry.lastModified
        )
    }

    /// The direct children listed in a Depth 1 answer for `directory`, without the directory
    /// itself and without temporary files.
    ///
    /// - Throws: `notADirectory` if the answer describes `directory` as a file; `invalidResponse`
    ///   if it does not describe `directory` at all or lists anything that is not a direct child
    ///   (a wrong listing is never returned).
    static func children(
        in entries: [MultistatusEntry],
        of directory: RemotePath,
        endpoint: WebDAVEndpoint
    ) throws -> [(path: RemotePath, entry: MultistatusEntry)] {
        try members(in: entries, of: directory, endpoint: endpoint).compactMap { member in
            guard !member.name.hasPrefix(RemotePath.reservedTemporaryPrefix),
                let path = try? directory.appending(RemotePath(components: [member.name]))
            else { return nil }
            return (path, member.entry)
        }
    }

    /// The temporary files listed in a Depth 1 answer for `directory` (checked as for
    /// ``children(in:of:endpoint:)``).
    static func temporaryFiles(
        in entries: [MultistatusEntry],
        of directory: RemotePath,
        endpoint: WebDAVEndpoint
    ) throws -> [TemporaryFile] {
        try members(in: entries, of: directory, endpoint: endpoint).compactMap { member in
            guard member.name.hasPrefix(RemotePath.reservedTemporaryPrefix), !member.entry.isCollection else { return nil }
            return TemporaryFile(directory: directory, name: member.name, size: member.entry.contentLength, modificationDate: member.entry.lastModified)
        }
    }

    /// Every member listed in a Depth 1 answer for `directory`, temporary files included, once
    /// each, without members the server could not describe.
    private static func members(
        in entries: [MultistatusEntry],
        of directory: RemotePath,
        endpoint: WebDAVEndpoint
    ) throws -> [(name: String, entry: MultistatusEntry)] {
        var sawDirectory = false
        var names = Set<String>()
        var children: [(name: String, entry: MultistatusEntry)] = []
        for entry in entries {
            guard let components = endpoint.relativeComponents(ofHref: entry.href) else {
                throw RemoteStoreError(
                    .invalidResponse,
                    path: directory,
                    message: "the listing names \(entry.href), which lies outside the store"
                )
            }
            if components == directory.components {
                guard entry.isCollection else {
                    throw RemoteStoreError(.notADirectory, path: directory, message: "a file cannot be listed")
                }
                sawDirectory = true
                continue
            }
            guard components.count == directory.components.count + 1, components.starts(with: directory.components),
                let name = components.last
            else {
                throw RemoteStoreError(
                    .invalidResponse,
                    path: directory,
                    message: "the listing names \(entry.href), which is not a direct child of the directory"
                )
            }
            if let status = entry.status, !(200..<300).contains(status) { continue }
            guard names.insert(name).inserted else { continue }
            children.append((name, entry))
        }
        guard sawDirectory else {
            throw RemoteStoreError(.invalidResponse, path: directory, message: "the listing does not describe the directory itself")
        }
        return children
    }
}
