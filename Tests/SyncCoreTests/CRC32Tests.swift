import Testing
@testable import SyncCore

@Suite("CRC-32")
struct CRC32Tests {
    static func checksum(_ bytes: [UInt8], splitAt cuts: [Int] = []) -> UInt32 {
        var crc = CRC32()
        var start = 0
        for end in cuts + [bytes.count] {
            bytes[start..<end].withUnsafeBytes { crc.update($0) }
            start = end
        }
        return crc.value
    }

    @Test("matches the standard check values")
    func checkValues() {
        #expect(Self.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Self.checksum([]) == 0)
        #expect(Self.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test("is the same whatever the chunking of the stream")
    func incremental() {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let whole = Self.checksum(bytes)
        for cuts in [[1], [7, 8, 9], [3, 250, 251, 999], Array(stride(from: 5, to: 1_000, by: 13))] {
            #expect(Self.checksum(bytes, splitAt: cuts) == whole)
        }
        var bitwise: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            bitwise ^= UInt32(byte)
            for _ in 0..<8 {
                bitwise = bitwise & 1 == 1 ? (bitwise >> 1) ^ 0xEDB8_8320 : bitwise >> 1
            }
        }
        #expect(whole == bitwise ^ 0xFFFF_FFFF, "agrees with the bit-by-bit definition")
    }
}
