/// The file name of a wrapped data key in `<appID>/Encryption/`:
/// `DataKey-<generation>-<key id>-<unique>.json`.
///
/// `<generation>` is 8 decimal digits (1 for the first password, one more per change, or the next
/// after a key file an interrupted creation left), `<key id>` the 32 hexadecimal digits of the
/// data key's identifier, and `<unique>` 8 random hexadecimal digits so two clients changing the
/// password at once never write the same name. Names carry the facts a client needs, so one `list`
/// tells it which key file is current and whether its cached key still matches. The current file
/// is the one with the highest generation (ties broken by name); older ones are deleted after a
/// new one is written.
struct WrappedKeyName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The generation: 1 for the first password, one more per password change.
    let generation: Int
    /// The identifier of the wrapped data key.
    let keyID: DataKeyID
    /// Random hexadecimal digits that keep concurrent writers apart.
    let unique: String

    private static let prefix = "DataKey-"
    private static let suffix = ".json"

    /// A new name for generation `generation` of `keyID`.
    init(generation: Int, keyID: DataKeyID) {
        self.generation = generation
        self.keyID = keyID
        unique = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
    }

    /// Parses a listed file name; `nil` for anything else.
    init?(fileName: String) {
        guard fileName.hasPrefix(Self.prefix), fileName.hasSuffix(Self.suffix) else {
            return nil
        }
        let fields = fileName.dropFirst(Self.prefix.count).dropLast(Self.suffix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 8, fields[0].allSatisfy(\.isASCIIDigit), let generation = Int(fields[0]),
            let keyID = DataKeyID(hex: fields[1]), fields[2].count == 8, fields[2].allSatisfy(\.isLowercaseHexDigit)
        else {
            return nil
        }
        self.generation = generation
        self.keyID = keyID
        unique = String(fields[2])
    }

    /// The file name.
    var fileName: String {
        "\(Self.prefix)\(String(generation).leftPadded(to: 8))-\(keyID.hex)-\(unique)\(Self.suffix)"
    }

    var description: String { fileName }

    static func < (lhs: WrappedKeyName, rhs: WrappedKeyName) -> Bool {
        (lhs.generation, lhs.fileName) < (rhs.generation, rhs.fileName)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    fileprivate var isLowercaseHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) }
}
