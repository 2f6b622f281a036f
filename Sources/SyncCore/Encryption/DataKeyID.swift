import Foundation
import RemoteProtocol

/// The public, random 128-bit identifier of a data key, written as 32 lowercase hexadecimal digits.
struct DataKeyID: Hashable, Sendable, CustomStringConvertible {
    /// The number of bytes of an identifier.
    static let byteCount = 16

    /// The identifier's bytes.
    let bytes: [UInt8]

    /// A fresh random identifier.
    static func random() -> DataKeyID {
        var generator = SystemRandomNumberGenerator()
        return DataKeyID(checkedBytes: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// An identifier from ``byteCount`` bytes; `nil` for any other count.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else {
            return nil
        }
        self.bytes = Array(bytes)
    }

    /// An identifier from its 32 hexadecimal digits; `nil` for anything else.
    init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == Self.byteCount * 2 else {
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    private init(checkedBytes: [UInt8]) {
        bytes = checkedBytes
    }

    /// The 32 lowercase hexadecimal digits.
    var hex: String {
        Hex.lowercase(bytes)
    }

    var description: String { hex }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
