import Foundation

/// Large test files written and compared in 1 MiB chunks, so tests never hold them in memory.
enum LargeFile {
    /// Writes `bytes` pseudo-random bytes (a xorshift sequence from `seed`).
    static func write(_ url: URL, bytes: Int, seed: UInt64) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed | 1
        var chunk = [UInt64](repeating: 0, count: (1 << 20) / 8)
        var remaining = bytes
        while remaining > 0 {
            for index in chunk.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                chunk[index] = state
            }
            let count = min(remaining, 1 << 20)
            try chunk.withUnsafeBytes { try handle.write(contentsOf: Data($0.prefix(count))) }
            remaining -= count
        }
    }

    /// True if both files have exactly the same bytes.
    static func identical(_ first: URL, _ second: URL) throws -> Bool {
        let a = try FileHandle(forReadingFrom: first)
        let b = try FileHandle(forReadingFrom: second)
        defer {
            try? a.close()
            try? b.close()
        }
        while true {
            let left = try a.read(upToCount: 1 << 20) ?? Data()
            let right = try b.read(upToCount: 1 << 20) ?? Data()
            if left != right { return false }
            if left.isEmpty { return true }
        }
    }
}
