/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as used by zlib and PNG), computed
/// incrementally over a stream.
///
/// Uses the slicing-by-8 method (eight 256-entry tables, eight bytes per step), several times faster
/// than the byte-at-a-time table; change sets are checksummed on every read pass.
struct CRC32 {
    /// Table `k` (entries `256 k ..< 256 (k + 1)`) gives the CRC of a byte followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 {
                value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
            }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    /// Feeds bytes into the checksum.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        Self.tables.withUnsafeBufferPointer { table in
            var offset = 0
            while bytes.count - offset >= 8 {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < bytes.count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        state = crc
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }
}
