import Foundation

/// Reads a file in chunks of a fixed size, one chunk ahead, so each chunk comes with whether it is
/// the last one.
///
/// An empty file yields one empty final chunk; a file whose size is a multiple of the chunk size
/// ends with a full final chunk.
struct ChunkReader {
    private let handle: FileHandle
    private let chunkByteCount: Int
    private var lookahead: Data?
    private var finished = false

    init(_ handle: FileHandle, chunkByteCount: Int) {
        self.handle = handle
        self.chunkByteCount = chunkByteCount
    }

    /// The next chunk and whether it is the last; `nil` after the last.
    mutating func next() throws -> (chunk: Data, isFinal: Bool)? {
        guard !finished else {
            return nil
        }
        let current = try lookahead ?? read()
        let following = current.count < chunkByteCount ? Data() : try read()
        if following.isEmpty {
            finished = true
            return (current, true)
        }
        lookahead = following
        return (current, false)
    }

    private func read() throws -> Data {
        try handle.read(upToCount: chunkByteCount) ?? Data()
    }
}
