import Foundation
import TestSupport

extension TemporaryDirectory {
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
}
