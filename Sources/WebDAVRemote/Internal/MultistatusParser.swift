import CurlTransport
import Foundation
import FoundationXML
import RemoteProtocol

/// Reads a WebDAV 207 Multi-Status body into ``MultistatusEntry`` values.
///
/// Elements are matched on the `DAV:` namespace and their local name, never on prefixes (servers
/// use `D:`, `ns0:`, `lp1:`, `d:`…). Properties are taken only from propstats whose status is
/// 2xx, so a `404 Not Found` propstat (Apache's answer for `getcontentlength` on a collection)
/// adds nothing. Anything that is not a well-formed multistatus (an HTML error page, truncated
/// XML, a response without an href, a length that is not a number) throws `invalidResponse`:
/// a wrong listing is worse than none.
final class MultistatusParser: NSObject, XMLParserDelegate {
    private var entries: [MultistatusEntry] = []
    private var failure: String?
    private var sawRoot = false
    private var path: [String] = []
    private var text = ""
    private var current: MultistatusEntry?
    private var propstat = PropstatState()

    /// What one propstat says, applied to the entry only if its status is 2xx.
    private struct PropstatState {
        var isCollection = false
        var contentLength: Int64?
        var lastModified: Date?
        var etag: String?
        var status: Int?
    }

    /// The ``RemoteProtocol/RemoteStoreError/underlying`` error of every failure of ``parse(_:path:)``:
    /// the body arrived whole (its Content-Length was met) but is not a readable multistatus.
    /// A server that wrote garbage after its status line, or a proxy that cut the body, may answer
    /// correctly the next time, so callers repeat the request a bounded number of times.
    struct Malformed: Error, Sendable, CustomStringConvertible {
        var description: String { "malformed multistatus body" }
    }

    /// Parses `data`.
    /// - Throws: ``RemoteStoreError`` with code `invalidResponse` and underlying ``Malformed``,
    ///   naming `path` and the problem.
    static func parse(_ data: Data, path: RemotePath?) throws -> [MultistatusEntry] {
        guard let parser = XMLParser.forServerAnswer(data) else {
            throw RemoteStoreError(
                .invalidResponse, path: path, message: "the PROPFIND response is not plain UTF-8 XML (invalid UTF-8, a processing instruction or a DTD)",
                underlying: Malformed()
            )
        }
        let delegate = MultistatusParser()
        parser.delegate = delegate
        let parsed = parser.parse()
        if let failure = delegate.failure {
            throw RemoteStoreError(.invalidResponse, path: path, message: "invalid PROPFIND response: \(failure)", underlying: Malformed())
        }
        guard parsed, delegate.sawRoot else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no multistatus element"
            throw RemoteStoreError(
                .invalidResponse,
                path: path,
                message: "the PROPFIND response is not well-formed WebDAV XML (line \(parser.lineNumber)): \(reason)",
                underlying: Malformed()
            )
        }
        return delegate.entries
    }

    private func fail(_ message: String, _ parser: XMLParser) {
        if failure == nil { failure = message }
        parser.abortParsing()
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let name = namespaceURI == "DAV:" ? elementName : "{\(namespaceURI ?? "")}\(elementName)"
        if path.isEmpty {
            guard name == "multistatus" else { return fail("the root element is \(elementName), not DAV:multistatus", parser) }
            sawRoot = true
        }
        switch name {
        case "response" where path == ["multistatus"]:
            current = MultistatusEntry(href: "")
        case "propstat" where path.last == "response":
            propstat = PropstatState()
        case "collection" where path.suffix(2) == ["prop", "resourcetype"]:
            propstat.isCollection = true
        default:
            break
        }
        path.append(name)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        // libxml2 may still report the end of an element it never started (after an abort, or in
        // its recovery mode): that document is broken, not a reason to trap.
        guard let name = path.popLast() else { return fail("an element ends that never started", parser) }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        switch (name, path.last) {
        case ("href", "response"):
            current?.href = value
        case ("status", "response"):
            current?.status = Self.status(of: value)
            if current?.status == nil { fail("unreadable status line '\(value.prefix(60))'", parser) }
        case ("status", "propstat"):
            propstat.status = Self.status(of: value)
            if propstat.status == nil { fail("unreadable status line '\(value.prefix(60))'", parser) }
        case ("getcontentlength", "prop"):
            propstat.contentLength = Int64(value)
            if !value.isEmpty, (propstat.contentLength ?? -1) < 0 {
                fail("getcontentlength '\(value.prefix(40))' is not a size", parser)
            }
        case ("getlastmodified", "prop"):
            propstat.lastModified = HTTPDate.parse(value)
        case ("getetag", "prop"):
            propstat.etag = value.isEmpty ? nil : value
        case ("propstat", "response"):
            applyPropstat()
        case ("response", "multistatus"):
            guard let entry = current, !entry.href.isEmpty else { return fail("a response has no href", parser) }
            entries.append(entry)
            current = nil
        default:
            break
        }
    }

    private func applyPropstat() {
        guard let status = propstat.status, (200..<300).contains(status), var entry = current else { return }
        entry.isCollection = entry.isCollection || propstat.isCollection
        entry.contentLength = propstat.contentLength ?? entry.contentLength
        entry.lastModified = propstat.lastModified ?? entry.lastModified
        entry.etag = propstat.etag ?? entry.etag
        current = entry
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if failure == nil, sawRoot {
            failure = "malformed XML at line \(parser.lineNumber): \(parseError.localizedDescription)"
        }
    }

    /// The code in a status line such as `HTTP/1.1 200 OK`.
    private static func status(of line: String) -> Int? {
        let fields = line.split(separator: " ")
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let code = Int(fields[1]), (100...599).contains(code)
        else { return nil }
        return code
    }
}
