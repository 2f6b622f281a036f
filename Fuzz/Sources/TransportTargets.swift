@testable import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport
@testable import S3Remote
@testable import WebDAVRemote

// The parsers of what servers answer and of what users type, called as the backends call them.

extension FuzzTarget {
    /// A PROPFIND answer, parsed and then read as the listing of `dir/` on a server mounted at
    /// `/dav/` (hrefs resolved and checked to be direct children).
    static let webDAVMultistatus = FuzzTarget(name: "webdav-multistatus") { input in
        expecting([RemoteStoreError.self], in: "webdav-multistatus") {
            let entries = try MultistatusParser.parse(input, path: "dir")
            let endpoint = try WebDAVEndpoint(url: URL(string: "http://127.0.0.1:8080/dav/")!)
            for entry in entries { _ = endpoint.relativeComponents(ofHref: entry.href) }
            let children = try WebDAVRemoteStore.children(in: entries, of: "dir", endpoint: endpoint)
            for child in children where child.path.parent != "dir" {
                fatalError("webdav-multistatus: \(child.path) was listed as a child of dir")
            }
        }
    }

    /// An S3 answer body, read as an error answer and as a `ListObjectsV2` page; accepted when it
    /// is either (an error whose S3 code was read, or a listing).
    static let s3XML = FuzzTarget(name: "s3-xml") { input in
        let error = RemoteStoreError.s3(
            HTTPResponse(status: 503, headers: [:], body: input, receivedByteCount: Int64(input.count)), method: "GET", path: nil, bucket: "fuzz"
        )
        _ = error.description
        let listing = expecting([RemoteStoreError.self], in: "s3-xml") {
            _ = try S3ListPage(parsing: input, for: "dir")
        }
        if case .refused = listing, (error.underlying as? S3ServiceError)?.code != nil {
            return .accepted
        }
        return listing
    }

    /// A netrc file, asked for a host with and without a login.
    static let netrc = FuzzTarget(name: "netrc") { input in
        let file = Netrc(parsing: String(decoding: input, as: UTF8.self))
        return expecting([Netrc.MalformedFile.self], in: "netrc") {
            _ = try file.credentials(for: "dav.example.com")
            _ = try file.credentials(for: "dav.example.com", login: "alice")
        }
    }

    /// A remote path as typed or listed. An accepted path must keep every promise of
    /// `RemotePath`: no component is empty, `.` or `..`, none holds a `/` or NUL byte or starts
    /// with the temporary prefix, none is longer than the limit, and its string parses back to it.
    static let remotePath = FuzzTarget(name: "remote-path") { input in
        let text = String(decoding: input, as: UTF8.self)
        return expecting([RemoteStoreError.self], in: "remote-path") {
            let path = try RemotePath(text)
            for component in path.components {
                let bytes = component.utf8
                guard !bytes.isEmpty, !bytes.elementsEqual(".".utf8), !bytes.elementsEqual("..".utf8), !bytes.contains(0),
                    !bytes.contains(UInt8(ascii: "/")), bytes.count <= RemotePath.maximumComponentByteCount,
                    !component.hasPrefix(RemotePath.reservedTemporaryPrefix)
                else {
                    fatalError("remote-path: \(Array(text.utf8)) was accepted with the component \(Array(bytes))")
                }
            }
            guard try RemotePath(path.string) == path, try RemotePath(components: path.components) == path else {
                fatalError("remote-path: \(Array(text.utf8)) does not parse back to itself")
            }
        }
    }
}
