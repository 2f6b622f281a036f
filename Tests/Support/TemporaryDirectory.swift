import Foundation

/// A fresh, uniquely named directory in the system's temporary directory for one test's files.
/// It is deleted with everything in it by ``remove()`` or, at the latest, when the last reference
/// to it goes away.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute location.
    public let url: URL

    /// Creates the directory, named `prefix` followed by a UUID.
    public init(prefix: String = "rollsync-test") throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "\(prefix)-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        remove()
    }

    /// The location of `relativePath` inside the directory (nothing is created).
    public func appending(_ relativePath: String) -> URL {
        url.appending(path: relativePath)
    }

    /// The names in the folder at `relativePath`, as the file system has them (hidden ones included).
    public func names(in relativePath: String = "") throws -> [String] {
        let path = appending(relativePath).path(percentEncoded: false)
        return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Deletes the directory and everything in it; does nothing if it is already gone.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
