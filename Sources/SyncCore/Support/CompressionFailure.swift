import Foundation

/// A compression or decompression failure of ``ZlibStream`` or ``ZstdStream``: a damaged,
/// truncated or over-long stream, or the library refusing to start.
struct CompressionFailure: Error, CustomStringConvertible {
    var description: String
}

extension FileHandle {
    /// Creates (or replaces) the file at `url` holding `header`, open for writing after it: the
    /// output of a compression or decompression.
    static func creatingFile(at url: URL, startingWith header: Data = Data()) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: header) else {
            throw CompressionFailure(description: "cannot create \(url.lastPathComponent)")
        }
        let output = try FileHandle(forWritingTo: url)
        try output.seekToEnd()
        return output
    }
}
