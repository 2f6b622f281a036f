/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as used by zlib and PNG), computed
/// incrementally over a stream.
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    private var state: UInt32 = 0xFFFF_FFFF

    /// Feeds bytes into the checksum.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        state = crc
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }
}
