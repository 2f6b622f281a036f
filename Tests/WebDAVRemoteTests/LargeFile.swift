import Foundation

/// A large local file of pseudo-random bytes for transfer tests, written and compared in 1 MiB
/// blocks so neither step holds the file in memory.
struct LargeFile {
    /// Where the file is.
    let url: URL
    /// Its size in bytes.
    let size: Int

    private static let blockSize = 1 << 20

    /// Writes `size` bytes to a new file in the temporary directory. Every block differs (its
    /// index is stamped into it), so misplaced or repeated blocks are detected.
    init(size: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("rollsync-large-\(UUID().uuidString)")
        self.size = size
        var generator = SystemRandomNumberGenerator()
        var block = Data((0..<Self.blockSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var written = 0
        var index: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: index) { block.replaceSubrange(0..<8, with: $0) }
            let count = min(Self.blockSize, size - written)
            try handle.write(contentsOf: block.prefix(count))
            written += count
            index += 1
        }
    }

    /// True if the file at `other` holds exactly the same bytes.
    func hasSameContent(as other: URL) throws -> Bool {
        let mine = try FileHandle(forReadingFrom: url)
        let theirs = try FileHandle(forReadingFrom: other)
        defer {
            try? mine.close()
            try? theirs.close()
        }
        while true {
            let a = try mine.read(upToCount: Self.blockSize) ?? Data()
            let b = try theirs.read(upToCount: Self.blockSize) ?? Data()
            if a != b { return false }
            if a.isEmpty { return true }
        }
    }

    /// Deletes the file.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
