import Foundation
import RemoteProtocol

extension ConformanceContext {
    /// Runs `body` with a fresh local path (nothing exists there yet) and removes whatever was
    /// written there afterwards.
    func withLocalFile<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let scratch = try await perform("reserve a local scratch file", nil) { try LocalScratchFile() }
        defer { scratch.remove() }
        return try await body(scratch.url)
    }

    /// A local path inside a local directory that does not exist.
    func missingLocalDirectoryFile() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("rollsync-conformance-missing-\(UUID().uuidString)", isDirectory: true)
            .appendingPathComponent("file", isDirectory: false)
    }

    /// Writes `data` to the local file `url`.
    func writeLocal(_ data: Data, to url: URL) async throws {
        try await perform("write the local file \(url.path)", nil) { try data.write(to: url) }
    }

    /// The local file's content, or `nil` if there is no file.
    func readLocal(_ url: URL) async throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await perform("read the local file \(url.path)", nil) { try Data(contentsOf: url) }
    }

    /// The local file must hold exactly `expected`.
    func expectLocalContent(_ url: URL, _ expected: Data, after operation: String, of path: RemotePath) async throws {
        let actual = try await readLocal(url)
        guard let actual else {
            throw failure(path, expected: "\(operation) leaves the \(expected.count) bytes in the local file", actual: "no local file")
        }
        if let difference = Self.difference(expected: expected, actual: actual) {
            throw failure(path, expected: "\(operation) leaves the \(expected.count) bytes in the local file", actual: difference)
        }
    }
}
