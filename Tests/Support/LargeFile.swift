import Foundation

/// Large test files of pseudo-random bytes, written and compared in 1 MiB blocks so tests never
/// hold a whole file in memory.
public enum LargeFile {
    private static let blockSize = 1 << 20

    /// Writes `bytes` bytes to a new file at `url` (replacing any file there): a xorshift sequence
    /// started from `seed`, so every block differs and misplaced or repeated blocks are detected,
    /// and the same seed always gives the same bytes.
    public static func write(_ url: URL, bytes: Int, seed: UInt64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw TestSupportError("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed | 1
        var block = [UInt64](repeating: 0, count: blockSize / 8)
        var remaining = bytes
        while remaining > 0 {
            for index in block.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                block[index] = state
            }
            let count = min(remaining, blockSize)
            try block.withUnsafeBytes { try handle.write(contentsOf: Data($0.prefix(count))) }
            remaining -= count
        }
    }

    /// True if both files hold exactly the same bytes (so also the same length).
    public static func identical(_ first: URL, _ second: URL) throws -> Bool {
        let a = try FileHandle(forReadingFrom: first)
        let b = try FileHandle(forReadingFrom: second)
        defer {
            try? a.close()
            try? b.close()
        }
        while true {
            let left = try a.read(upToCount: blockSize) ?? Data()
            let right = try b.read(upToCount: blockSize) ?? Data()
            if left != right { return false }
            if left.isEmpty { return true }
        }
    }
}
