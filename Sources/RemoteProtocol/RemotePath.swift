import Foundation

/// A validated, normalised path inside a ``RemoteStore``, relative to the store's root.
///
/// A `RemotePath` is a list of components. Every value that exists is valid, so backends never
/// have to re-check what they are given:
///
/// - `..` is rejected anywhere (a path can never climb above the store's root);
/// - `.` components are dropped (`a/./b` is `a/b`);
/// - empty components are rejected (`a//b`, a trailing `/`);
/// - a leading `/` is rejected: every path is relative to the store's root;
/// - NUL characters are rejected, and so is `/` inside a single component;
/// - a component longer than ``maximumComponentByteCount`` UTF-8 bytes is rejected;
/// - a component that starts with ``reservedTemporaryPrefix`` is rejected: backends use that
///   prefix for files in flight, and ``RemoteStore/list(_:)`` hides such names;
/// - every component is normalised to Unicode NFC, so `"é"` typed as one or two code points names
///   the same file on every backend.
///
/// Everything else is allowed, including spaces, `? # % & + ' "`, leading dots and any Unicode.
/// The empty path, ``root``, is the store's root directory.
///
/// Invalid input throws ``RemoteStoreError`` with code ``RemoteStoreError/Code/invalidPath``.
/// A string literal is accepted where a `RemotePath` is expected; an invalid literal is a
/// programming error and stops the program.
public struct RemotePath: Hashable, Sendable, Comparable {
    /// The longest component, in UTF-8 bytes, that every supported backend can store (the limit
    /// of common Linux file systems).
    public static let maximumComponentByteCount = 255

    /// The name prefix reserved for a backend's temporary files (an upload in flight).
    public static let reservedTemporaryPrefix = ".rollsync-partial-"

    /// The store's root directory.
    public static let root = RemotePath(validated: [])

    /// The path's components, already validated and normalised.
    public let components: [String]

    private init(validated components: [String]) {
        self.components = components
    }

    /// Parses a `/`-separated relative path.
    ///
    /// The empty string is the ``root``. See the type's documentation for the rules.
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/invalidPath``.
    public init(_ string: String) throws {
        if string.isEmpty {
            self = .root
            return
        }
        // Split and checked on UTF-8 bytes, never on `Character`s: a combining mark after `/`
        // makes one character of both, which a character comparison does not see as `/`.
        if string.utf8.first == Self.separator {
            throw Self.invalid(string, "absolute paths are not allowed; paths are relative to the store's root")
        }
        let parts = string.utf8.split(separator: Self.separator, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        try self.init(components: parts, original: string)
    }

    /// Builds a path from individual components (none of which may contain `/`).
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/invalidPath``.
    public init(components: [String]) throws {
        try self.init(components: components, original: components.joined(separator: "/"))
    }

    private init(components parts: [String], original: String) throws {
        var normalised: [String] = []
        normalised.reserveCapacity(parts.count)
        for part in parts {
            normalised.append(contentsOf: try Self.validatedComponent(part, in: original))
        }
        self.init(validated: normalised)
    }

    /// The byte of `/`, which separates components.
    private static let separator = UInt8(ascii: "/")

    /// Returns the NFC form of `part`, nothing for `.`, or throws for anything invalid.
    ///
    /// Compared byte by byte (a combining mark after NUL or `/` must not hide them).
    private static func validatedComponent(_ part: String, in original: String) throws -> [String] {
        let bytes = part.utf8
        if bytes.isEmpty {
            throw invalid(original, "empty path components (as in 'a//b' or a trailing '/') are not allowed")
        }
        if bytes.elementsEqual(".".utf8) {
            return []
        }
        if bytes.elementsEqual("..".utf8) {
            throw invalid(original, "'..' is not allowed in a remote path")
        }
        if bytes.contains(0) {
            throw invalid(original, "NUL characters are not allowed in a remote path")
        }
        if bytes.contains(separator) {
            throw invalid(original, "a path component cannot contain '/'")
        }
        let nfc = part.precomposedStringWithCanonicalMapping
        if nfc.utf8.count > maximumComponentByteCount {
            throw invalid(
                original,
                "the component '\(nfc.prefix(32))…' is \(nfc.utf8.count) UTF-8 bytes long; "
                    + "the limit is \(maximumComponentByteCount)"
            )
        }
        if nfc.hasPrefix(reservedTemporaryPrefix) {
            throw invalid(original, "names starting with '\(reservedTemporaryPrefix)' are reserved for temporary files")
        }
        return [nfc]
    }

    private static func invalid(_ path: String, _ reason: String) -> RemoteStoreError {
        RemoteStoreError(.invalidPath, message: "invalid remote path '\(path.debugDescriptionWithoutNUL)': \(reason)")
    }

    /// True for the store's root directory.
    public var isRoot: Bool { components.isEmpty }

    /// The last component, or the empty string for the root.
    public var name: String { components.last ?? "" }

    /// The directory that holds this path; `nil` for the root.
    public var parent: RemotePath? {
        isRoot ? nil : RemotePath(validated: Array(components.dropLast()))
    }

    /// All the directories above this path, from the root's first child down to the parent.
    /// For `a/b/c` that is `a` and `a/b`.
    public var ancestors: [RemotePath] {
        guard components.count > 1 else { return [] }
        return (1..<components.count).map { RemotePath(validated: Array(components.prefix($0))) }
    }

    /// This path followed by `other`.
    public func appending(_ other: RemotePath) -> RemotePath {
        RemotePath(validated: components + other.components)
    }

    /// This path followed by one or more components given as a relative path string.
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/invalidPath``.
    public func appending(_ relative: String) throws -> RemotePath {
        appending(try RemotePath(relative))
    }

    /// True if `self` equals `other` or lies below it.
    public func isDescendant(ofOrEqualTo other: RemotePath) -> Bool {
        components.starts(with: other.components)
    }

    /// The path as a `/`-separated string without a leading slash; the root is the empty string.
    public var string: String { components.joined(separator: "/") }

    public static func < (lhs: RemotePath, rhs: RemotePath) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }

    /// Joins a path and a relative path string, stopping the program if `rhs` is invalid.
    /// Intended for constant, known-good names (`root / "Documents"`).
    public static func / (lhs: RemotePath, rhs: String) -> RemotePath {
        do {
            return try lhs.appending(rhs)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

extension RemotePath: CustomStringConvertible {
    /// The path string; the root prints as `/`.
    public var description: String { isRoot ? "/" : string }
}

extension RemotePath: ExpressibleByStringLiteral {
    /// Creates a path from a literal; an invalid literal is a programming error and stops the program.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

extension RemotePath: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }
}

extension String {
    /// The string with NUL shown as `\0`, so error messages stay printable.
    fileprivate var debugDescriptionWithoutNUL: String {
        var shown = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if scalar == "\0" { shown.append(contentsOf: #"\0"#.unicodeScalars) } else { shown.append(scalar) }
        }
        return String(shown)
    }
}
