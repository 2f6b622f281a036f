import Foundation
import FoundationXML

extension XMLParser {
    /// A parser for `body`, an XML answer of a server (a WebDAV multistatus, an S3 listing or
    /// error), with namespace processing on and external entities never fetched; `nil` for a body
    /// no server we speak to sends: one that is not valid UTF-8, holds a NUL byte, or holds a
    /// processing instruction (other than the leading XML declaration) or a document type
    /// declaration.
    ///
    /// The check keeps a damaged or hostile answer from ending the process. Fuzzing the S3 parser
    /// found two crashes inside swift-corelibs-foundation's `XMLParser`, which should report parse
    /// errors instead: it traps on an element or attribute name that is not valid UTF-8
    /// (swift-corelibs-foundation#5534), and it reads a null pointer for a processing instruction
    /// without data (`<?x?>`). Without a DTD there are also no entities to expand.
    ///
    /// The parser is given the body without its byte-order mark and XML declaration, so libxml2
    /// reads it as UTF-8 whatever the declaration says: an `encoding="IBM037"` or UTF-7 would
    /// otherwise turn bytes this check read as text into a processing instruction, and NUL bytes
    /// (which XML forbids anyway) would let libxml2 take a UTF-16 body without a BOM for one.
    package static func forServerAnswer(_ body: Data) -> XMLParser? {
        guard String(validating: body, as: UTF8.self) != nil, !body.contains(0), let content = Self.content(of: body) else {
            return nil
        }
        let parser = XMLParser(data: Data(content))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        return parser
    }

    /// `body` after its byte-order mark and XML declaration, if it holds no other `<?` and every
    /// `<!` starts a comment or a CDATA section (whose content is scanned too: a `<?` there
    /// refuses the body); `nil` otherwise.
    private static func content(of body: Data) -> Data.SubSequence? {
        var bytes = body[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if bytes.starts(with: Array("<?xml".utf8)), bytes.count > 5, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[bytes.startIndex + 5]) {
            // The declaration ends at its first `?>`, and holds no `<` (else a malformed one
            // would hide a processing instruction: `<?xml a="b"><?x?>`).
            guard let end = bytes.firstRange(of: Array("?>".utf8)), !bytes[..<end.lowerBound].dropFirst().contains(UInt8(ascii: "<")) else {
                return nil
            }
            bytes = bytes[end.upperBound...]
        }
        var index = bytes.startIndex
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            let rest = bytes[(open + 1)...]
            if rest.first == UInt8(ascii: "?") { return nil }
            if rest.first == UInt8(ascii: "!"), !rest.dropFirst().starts(with: Array("--".utf8)), !rest.dropFirst().starts(with: Array("[CDATA[".utf8)) {
                return nil
            }
            index = open + 1
        }
        return bytes
    }
}
