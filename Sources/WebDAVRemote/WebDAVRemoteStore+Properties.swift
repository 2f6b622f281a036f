import Foundation
import RemoteProtocol

extension WebDAVRemoteStore {
    /// The largest PROPFIND answer held in memory (about 150,000 entries of a Depth 1 listing).
    static let propfindBodyLimit = 64 * 1024 * 1024

    /// Sends a PROPFIND with an explicit property list and the given depth; returns 207, or 400,
    /// 404 and 409 for the caller to interpret.
    func propfind(_ path: RemotePath, collection: Bool, depth: Int) async throws -> HTTPResponse {
        try await client.send(
            HTTPRequest(
                method: "PROPFIND",
                url: client.endpoint.url(for: path, collection: collection || path.isRoot),
                headers: ["Depth: \(depth)"],
                body: .data(Self.propfindBody, contentType: "application/xml; charset=utf-8"),
                sink: .memory(limit: Self.propfindBodyLimit)
            ),
            for: path,
            accepting: [207, 400, 404, 409],
            idempotent: true
        )
    }

    /// The properties of the resource at `path`, or `nil` if there is none (including when an
    /// ancestor is a file).
    ///
    /// Apache answers 400 for a path below a file; that is told apart from a real bad request by
    /// looking at the parent.
    func properties(of path: RemotePath) async throws -> MultistatusEntry? {
        let response = try await propfind(path, collection: false, depth: 0)
        switch response.status {
        case 207:
            let entries = try MultistatusParser.parse(response.body, path: path)
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
        case 400:
            guard let parent = path.parent, try await properties(of: parent)?.isCollection != true else {
                throw RemoteStoreError.httpStatus(400, method: "PROPFIND", path: path, body: response.body)
            }
            return nil
        default:
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
        var sawDirectory = false
        var names = Set<String>()
        var children: [(path: RemotePath, entry: MultistatusEntry)] = []
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
            if name.hasPrefix(RemotePath.reservedTemporaryPrefix) { continue }
            if let status = entry.status, !(200..<300).contains(status) { continue }
            guard let path = try? directory.appending(RemotePath(components: [name])), names.insert(name).inserted else {
                continue
            }
            children.append((path, entry))
        }
        guard sawDirectory else {
            throw RemoteStoreError(.invalidResponse, path: directory, message: "the listing does not describe the directory itself")
        }
        return children
    }
}
