import CurlTransport
import Foundation
import FoundationXML

/// A parsed XML element of an S3 answer: its local name, its text and its children. S3's
/// documents are small (a list page is at most 1,000 entries), so a tree is simplest.
final class S3XMLElement: @unchecked Sendable {
    let name: String
    fileprivate(set) var text = ""
    fileprivate(set) var children: [S3XMLElement] = []

    fileprivate init(name: String) {
        self.name = name
    }

    /// The first child named `name`.
    func child(_ name: String) -> S3XMLElement? {
        children.first { $0.name == name }
    }

    /// Every child named `name`.
    func children(_ name: String) -> [S3XMLElement] {
        children.filter { $0.name == name }
    }

    /// The text of the first child named `name`.
    func value(_ name: String) -> String? {
        child(name)?.text
    }

    /// Parses `data`; `nil` if it is not well-formed XML in UTF-8.
    static func parse(_ data: Data) -> S3XMLElement? {
        guard let parser = XMLParser.forServerAnswer(data) else { return nil }
        let builder = TreeBuilder()
        parser.delegate = builder
        guard parser.parse() else { return nil }
        return builder.root
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: S3XMLElement?
        private var stack: [S3XMLElement] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let element = S3XMLElement(name: elementName)
            if let parent = stack.last { parent.children.append(element) } else { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            // `popLast`: libxml2 in recovery mode may end an element it never started.
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}

/// Escapes text for an XML element body.
func xmlEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        .replacingOccurrences(of: "'", with: "&apos;")
}
