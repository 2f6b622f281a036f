import Foundation
import CryptoPrimitives
import RemoteProtocol

/// An identifier an application chooses for itself, a document or a client, which RollingSync
/// uses as a directory or file name on every backend.
///
/// To be safe on every file system and server, an identifier is 1 to 100 characters from
/// `A–Z a–z 0–9 . _ -`, and does not start with `.` or `-`. `"com.example.notes"`,
/// `"laptop-7F3A"` and UUID strings are all valid.
public struct SyncIdentifier: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The longest identifier accepted.
    public static let maximumLength = 100

    /// The identifier's text.
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``SyncError`` with code ``SyncError/Code/invalidIdentifier``, naming what is wrong.
    public init(_ rawValue: String) throws {
        guard !rawValue.isEmpty, rawValue.utf8.count <= Self.maximumLength else {
            throw SyncError(.invalidIdentifier, "the identifier '\(rawValue.prefix(120))' must have 1 to \(Self.maximumLength) characters")
        }
        guard rawValue.utf8.allSatisfy(Self.isAllowed) else {
            throw SyncError(
                .invalidIdentifier,
                "the identifier '\(rawValue)' may contain only letters A–Z and a–z, digits, '.', '_' and '-'"
            )
        }
        guard let first = rawValue.utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-") else {
            throw SyncError(.invalidIdentifier, "the identifier '\(rawValue)' must not start with '.' or '-'")
        }
        self.rawValue = rawValue
    }

    /// An identifier for any text, such as a device name (`"Anna's iPhone (2)"`, `"alice@laptop"`):
    /// the text itself when it is a valid identifier; otherwise its letters A–Z and a–z, digits,
    /// `.`, `_` and `-` (every other character becoming `-`, runs of them one, at most 60 bytes),
    /// then `-` and 16 hex digits of the text's SHA-256, so that different texts stay different
    /// identifiers (`Anna-s-iPhone-2-3f0c…`). Never fails; one text always gives one identifier.
    public init(deriving text: String) {
        if let valid = try? SyncIdentifier(text) {
            self = valid
            return
        }
        var kept: [UInt8] = []
        for byte in text.utf8 {
            let allowed = Self.isAllowed(byte) ? byte : UInt8(ascii: "-")
            if allowed == UInt8(ascii: "-"), kept.last == UInt8(ascii: "-") { continue }
            kept.append(allowed)
        }
        let stem = kept.drop { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }.prefix(60)
        let digest = Hex.lowercase(SHA256.hash(Array(text.utf8)).prefix(8))
        let name = (stem.isEmpty ? "client" : String(decoding: stem, as: UTF8.self)) + (stem.last == UInt8(ascii: "-") ? "" : "-") + digest
        // Built from allowed characters, not starting with '.' or '-', at most 77 bytes: valid.
        rawValue = name
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// The identifier as a single path component.
    var pathComponent: RemotePath {
        // Every valid identifier is a valid component, so this cannot fail.
        RemotePath(stringLiteral: rawValue)
    }

    public var description: String { rawValue }

    public static func < (lhs: SyncIdentifier, rhs: SyncIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
