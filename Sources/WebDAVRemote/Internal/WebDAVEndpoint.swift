import Foundation
import RemoteProtocol

/// The server location of a WebDAV store: the http(s) base URL every request is built from, and
/// the rules that turn ``RemotePath``s into URLs and server hrefs back into paths.
///
/// `webdav://` becomes `http://` and `webdavs://` becomes `https://`; `http://` and `https://`
/// are kept. The base always ends with `/`. Collections get a trailing `/`, files never do. Every
/// path component is percent-encoded except the RFC 3986 unreserved characters, so names with
/// spaces, `? # % & + ' "` or any Unicode travel intact.
struct WebDAVEndpoint: Sendable, Equatable {
    /// `scheme://host[:port]`, as sent (for Destination headers and same-origin redirect checks).
    let origin: String
    /// The percent-encoded base path, starting and ending with `/`.
    let encodedBasePath: String
    /// The base path's decoded components (for matching hrefs).
    let baseComponents: [String]

    /// Characters left unencoded in a path component (RFC 3986 unreserved).
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// Parses a store URL.
    /// - Throws: ``RemoteStoreError`` with code `unsupported` for another scheme, a missing host,
    ///   or a query or fragment (which a WebDAV root cannot have).
    init(url: URL) throws {
        let scheme: String
        switch url.scheme?.lowercased() {
        case "webdav", "http": scheme = "http"
        case "webdavs", "https": scheme = "https"
        default:
            throw RemoteStoreError(.unsupported, message: "\(url.redactingPassword) is not a webdav(s):// or http(s):// URL")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw RemoteStoreError(.unsupported, message: "the WebDAV URL \(url.redactingPassword) has no host")
        }
        guard components.percentEncodedQuery == nil, components.percentEncodedFragment == nil else {
            throw RemoteStoreError(
                .unsupported,
                message: "the WebDAV URL \(url.redactingPassword) has a query or fragment, which a store root cannot have"
            )
        }
        let port = components.port.map { ":\($0)" } ?? ""
        origin = "\(scheme)://\(host)\(port)"
        let decodedComponents = components.path.split(separator: "/").map(String.init)
        baseComponents = decodedComponents.map(\.precomposedStringWithCanonicalMapping)
        encodedBasePath = "/" + decodedComponents.map(Self.encode).map { $0 + "/" }.joined()
    }

    /// The base URL, ending with `/`.
    var baseURL: String { origin + encodedBasePath }

    /// The absolute URL of `path`; with a trailing `/` when `collection` is true (the root always has one).
    func url(for path: RemotePath, collection: Bool) -> String {
        url(components: path.components, collection: collection)
    }

    /// The absolute URL of the resource named by `components` below the base, which may include
    /// names ``RemotePath`` reserves (temporary files).
    func url(components: [String], collection: Bool) -> String {
        guard !components.isEmpty else { return baseURL }
        return baseURL + components.map(Self.encode).joined(separator: "/") + (collection ? "/" : "")
    }

    /// The components, relative to the base, of the resource an href names; `nil` if the href lies
    /// outside the base.
    ///
    /// An href may be an absolute URI or an absolute path; it is percent-decoded (kept as is if it
    /// is not valid percent-encoding, as some servers send raw names) and normalised to NFC before
    /// comparing, so differences in encoding case or escaped characters never matter.
    func relativeComponents(ofHref href: String) -> [String]? {
        var path = href.trimmingCharacters(in: .whitespacesAndNewlines)
        if let schemeEnd = path.range(of: "://") {
            let afterScheme = path[schemeEnd.upperBound...]
            path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        }
        let components = path.split(separator: "/").map { part in
            let text = String(part)
            return (text.removingPercentEncoding ?? text).precomposedStringWithCanonicalMapping
        }
        guard components.starts(with: baseComponents) else { return nil }
        return Array(components.dropFirst(baseComponents.count))
    }

    /// Resolves a `Location` header against `url`; `nil` if it points to another origin (never
    /// followed: the credentials must not travel to another server).
    func sameOriginRedirect(_ location: String, from url: String) -> String? {
        guard let base = URL(string: url), let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), let host = target.host
        else { return nil }
        let port = target.port.map { ":\($0)" } ?? ""
        guard "\(scheme)://\(host)\(port)".lowercased() == origin.lowercased() else { return nil }
        return target.absoluteString
    }

    /// Whether `path` can be named in a `Destination` header (COPY, MOVE) on every server.
    ///
    /// wsgidav 4.4 percent-decodes the Destination header *before* parsing it as a URL, so a `?`
    /// anywhere starts a query and a `;` starts parameters: MOVE to `a?b` silently moves to `a`,
    /// replacing another file. Such names are therefore never used as destinations.
    static func destinationHeaderCanCarry(_ path: RemotePath) -> Bool {
        !path.components.contains { $0.contains("?") || $0.contains(";") }
    }

    private static func encode(_ component: String) -> String {
        component.addingPercentEncoding(withAllowedCharacters: unreserved) ?? component
    }
}
