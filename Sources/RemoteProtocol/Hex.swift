/// Bytes written as hexadecimal digits, two per byte, most significant first: for digests in
/// names and signatures, percent-encoding and descriptions of binary keys. Shared by this
/// package's modules only (`package` access): not part of the contract a backend implements.
///
/// Built from a digit table rather than `String(format:)`, which costs an allocation and a
/// format parse per byte (S3 signs every request with two 32-byte digests).
package enum Hex {
    /// `bytes` in lower-case hex digits (`[0x0a, 0xff]` → `"0aff"`); empty for no byte.
    package static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        encode(bytes, digits: lowercaseDigits)
    }

    /// `bytes` in upper-case hex digits (`[0x0a, 0xff]` → `"0AFF"`); empty for no byte.
    package static func uppercase(_ bytes: some Sequence<UInt8>) -> String {
        encode(bytes, digits: uppercaseDigits)
    }

    private static let lowercaseDigits = Array("0123456789abcdef".utf8)
    private static let uppercaseDigits = Array("0123456789ABCDEF".utf8)

    private static func encode(_ bytes: some Sequence<UInt8>, digits: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
