import Foundation
import RemoteProtocol

/// How ``RemotePath``s become object keys and keys become URLs.
///
/// The path `a/b` of a store whose prefix is `p` is the object `p/a/b`; a directory made with
/// `createDirectory` is the empty marker object `p/a/b/` (as the S3 console makes them), and
/// any object below `p/a/b/` implies the directory too.
struct S3Key: Sendable {
    /// The prefix of every key, ending in `/`, or empty.
    let rootPrefix: String

    init(prefix: String) {
        rootPrefix = prefix.isEmpty ? "" : prefix + "/"
    }

    /// The object key of the file at `path`.
    func file(_ path: RemotePath) -> String {
        rootPrefix + path.string
    }

    /// The prefix of everything inside the directory at `path` (also the key of its marker).
    func directory(_ path: RemotePath) -> String {
        path.isRoot ? rootPrefix : rootPrefix + path.string + "/"
    }

    /// The path of a listed key or common prefix below `directory`'s prefix; `nil` for the
    /// directory's own marker and for names no ``RemotePath`` accepts (written by someone else).
    func child(named key: String, in directory: RemotePath) -> RemotePath? {
        let base = self.directory(directory)
        guard key.hasPrefix(base) else { return nil }
        var name = String(key.dropFirst(base.count))
        if name.hasSuffix("/") { name.removeLast() }
        guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: "/")) else { return nil }
        return try? directory.appending(RemotePath(components: [name]))
    }

    /// AWS's URI encoding (SigV4 "UriEncode"): every byte except the unreserved `A-Z a-z 0-9 - _ . ~`
    /// as `%XX` (upper case), `/` kept when `keepingSlashes`. Keys encoded this way are already
    /// the canonical URI ``S3Signer`` signs as it is, and so are query values.
    static func uriEncode(_ text: String, keepingSlashes: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: "/") where keepingSlashes:
                result.append("/")
            default:
                result += "%" + Hex.uppercase(CollectionOfOne(byte))
            }
        }
        return result
    }

    /// A canonical query string: names and values URI-encoded, sorted by name, each `name=value`
    /// (also with an empty value), as SigV4 signs it. ``S3Signer`` signs the query exactly as the
    /// URL carries it, so the URL must carry the canonical form.
    static func canonicalQuery(_ items: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = items.map { item in
            (uriEncode(item.0, keepingSlashes: false), uriEncode(item.1, keepingSlashes: false))
        }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { item in item.name + "=" + item.value }.joined(separator: "&")
    }
}
