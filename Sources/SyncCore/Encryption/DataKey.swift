import CryptoPrimitives
import Foundation

/// The random 256-bit key that encrypts every remote file of an application, with its public
/// identifier.
///
/// The identifier is random too and not secret: it is written beside the wrapped key and in the
/// header of every encrypted file, so a client can tell that its cached key is not the one the
/// remote data uses. The key itself never appears in a description or a reflection.
struct DataKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The number of bytes of a data key.
    static let byteCount = 32

    /// The key's public identifier.
    let id: DataKeyID
    /// The key's bytes.
    let bytes: [UInt8]

    /// A fresh random key with a fresh identifier.
    static func random() -> DataKey {
        DataKey(id: .random(), checkedBytes: secureRandomBytes(byteCount))
    }

    /// A key from its stored bytes; `nil` unless there are exactly ``byteCount`` of them.
    init?(id: DataKeyID, bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else {
            return nil
        }
        self.init(id: id, checkedBytes: Array(bytes))
    }

    private init(id: DataKeyID, checkedBytes: [UInt8]) {
        self.id = id
        bytes = checkedBytes
    }

    var description: String { "DataKey(id: \(id), key: <redacted>)" }
    var customMirror: Mirror { Mirror(self, children: ["id": id]) }
}
