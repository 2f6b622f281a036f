import Foundation

/// A fresh, uniquely named folder in the system's temporary directory, deleted by ``remove()``.
struct TemporaryFolder {
    /// The folder's absolute location.
    let url: URL

    /// Creates the folder.
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "rollsync-file-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// The location of `relativePath` inside the folder.
    func appending(_ relativePath: String) -> URL {
        url.appending(path: relativePath)
    }

    /// Writes `text` to the file at `relativePath`, creating missing folders.
    func write(_ text: String, to relativePath: String) throws {
        let file = appending(relativePath)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(text.utf8).write(to: file)
    }

    /// The text of the file at `relativePath`.
    func read(_ relativePath: String) throws -> String {
        String(decoding: try Data(contentsOf: appending(relativePath)), as: UTF8.self)
    }

    /// The names in the folder at `relativePath`, as the file system has them (hidden ones included).
    func names(in relativePath: String = "") throws -> [String] {
        let path = appending(relativePath).path(percentEncoded: false)
        return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Deletes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
