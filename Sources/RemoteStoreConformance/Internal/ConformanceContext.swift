import Foundation
import RemoteProtocol

/// One run of one check: the store, the run's working directory, and the steps checks are written
/// with. Every step turns an unexpected outcome into a ``ConformanceFailure`` that names the check,
/// the path and the suite's line.
struct ConformanceContext: Sendable {
    typealias Check = RemoteStoreConformance.Check

    let check: Check
    let store: any RemoteStore
    /// The run's fresh working directory; checks create everything below it.
    let directory: RemotePath
    let options: RemoteStoreConformance.Options
    /// Opens another store of the backend (for the checks that need a second one).
    let makeStore: @Sendable () async throws -> any RemoteStore

    // MARK: Paths and failures

    /// `relative` (a `/`-separated path of known-good names) inside the working directory.
    func path(_ relative: String) -> RemotePath {
        directory / relative
    }

    /// `components` (names that may be hostile) inside `parent`.
    func path(_ components: [String], in parent: RemotePath) throws -> RemotePath {
        parent.appending(try RemotePath(components: components))
    }

    func failure(
        _ path: RemotePath?,
        expected: String,
        actual: String,
        underlying: (any Error)? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> ConformanceFailure {
        ConformanceFailure(
            check: check, path: path, expected: expected, actual: actual, underlying: underlying,
            fileID: fileID, line: line
        )
    }

    /// Runs one step that must succeed; any error becomes a failure saying which step threw.
    /// A `CancellationError` while the run itself is cancelled passes through unchanged.
    func perform<Result>(
        _ operation: String,
        _ path: RemotePath?,
        fileID: String = #fileID,
        line: Int = #line,
        _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch let failure as ConformanceFailure {
            throw failure
        } catch let error as CancellationError where Task.isCancelled {
            throw error
        } catch {
            throw failure(
                path, expected: "\(operation) to succeed", actual: "it threw \(Self.describe(error))",
                underlying: error, fileID: fileID, line: line
            )
        }
    }

    /// Runs one step that must throw a ``RemoteStoreError`` with `code`.
    func expectError(
        _ code: RemoteStoreError.Code,
        _ operation: String,
        _ path: RemotePath?,
        fileID: String = #fileID,
        line: Int = #line,
        _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
        } catch let error as RemoteStoreError where error.code == code {
            return
        } catch let error as CancellationError where Task.isCancelled {
            throw error
        } catch {
            throw failure(
                path, expected: "\(operation) to throw \(code)", actual: "it threw \(Self.describe(error))",
                underlying: error, fileID: fileID, line: line
            )
        }
        throw failure(path, expected: "\(operation) to throw \(code)", actual: "it succeeded", fileID: fileID, line: line)
    }

    /// Writes a small file, runs `body` on `target` (the file itself or a path below it), which
    /// must throw a ``RemoteStoreError`` with `code`, and checks that the file is unchanged.
    func expectErrorLeavingFile(
        _ code: RemoteStoreError.Code,
        _ operation: String,
        at relative: String? = nil,
        fileID: String = #fileID,
        line: Int = #line,
        _ body: (RemotePath) async throws -> Void
    ) async throws {
        let file = path("file")
        let content = Self.randomData(10)
        try await write(content, to: file, fileID: fileID, line: line)
        let target = relative.map { file / $0 } ?? file
        try await expectError(code, operation, target, fileID: fileID, line: line) { try await body(target) }
        try await expectContent(file, content, fileID: fileID, line: line)
    }

    /// A store's error for a failure message: a `RemoteStoreError` by its code and message,
    /// anything else with its type, since only `RemoteStoreError` may escape.
    static func describe(_ error: any Error) -> String {
        if let error = error as? RemoteStoreError {
            return error.description
        }
        return "\(String(reflecting: type(of: error))) (not a RemoteStoreError): \(error)"
    }

    // MARK: Steps that must succeed

    func exists(_ path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws -> RemoteItem? {
        try await perform("exists", path, fileID: fileID, line: line) { try await store.exists(path) }
    }

    func createDirectory(_ path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws {
        try await perform("createDirectory", path, fileID: fileID, line: line) { try await store.createDirectory(at: path) }
    }

    func write(_ data: Data, to path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws {
        try await perform("upload", path, fileID: fileID, line: line) { try await store.write(data, to: path) }
    }

    func read(_ path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws -> Data {
        try await perform("download", path, fileID: fileID, line: line) { try await store.read(path) }
    }

    func copy(_ source: RemotePath, to destination: RemotePath, fileID: String = #fileID, line: Int = #line) async throws {
        try await perform("copy from '\(source)'", destination, fileID: fileID, line: line) {
            try await store.copy(source, to: destination)
        }
    }

    func list(_ path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws -> [RemoteItem] {
        try await perform("list", path, fileID: fileID, line: line) { try await store.list(path) }
    }

    func delete(_ path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws {
        try await perform("delete", path, fileID: fileID, line: line) { try await store.delete(path) }
    }

    // MARK: Expectations

    /// Downloads `path` and compares it with `expected` byte for byte.
    func expectContent(_ path: RemotePath, _ expected: Data, fileID: String = #fileID, line: Int = #line) async throws {
        let actual = try await read(path, fileID: fileID, line: line)
        if let difference = Self.difference(expected: expected, actual: actual) {
            throw failure(path, expected: "the content written (\(expected.count) bytes)", actual: difference, fileID: fileID, line: line)
        }
    }

    /// Describes how `actual` differs from `expected`, or `nil` if they are equal.
    static func difference(expected: Data, actual: Data) -> String? {
        if expected == actual { return nil }
        if expected.count != actual.count {
            return "\(actual.count) bytes"
        }
        let offset = zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
        return "\(actual.count) bytes, differing from byte \(offset) on"
    }

    /// `exists` must return `nil` for `path`.
    func expectAbsent(_ path: RemotePath, _ why: String, fileID: String = #fileID, line: Int = #line) async throws {
        if let item = try await exists(path, fileID: fileID, line: line) {
            throw failure(path, expected: "no item (\(why))", actual: "exists returned a \(item.kind)", fileID: fileID, line: line)
        }
    }

    /// With `RemoteCapabilities.implicitDirectories`: the file `file`, written
    /// into the missing directory `directory`, holds `content`, and the directory now exists and
    /// lists it.
    func expectImpliedDirectory(_ directory: RemotePath, holding file: RemotePath, _ content: Data) async throws {
        try await expectContent(file, content)
        try await expectDirectory(directory)
        try await expectListing(directory, [file.name: (.file, content.count)])
    }

    /// `exists` must report a directory at `path`.
    func expectDirectory(_ path: RemotePath, fileID: String = #fileID, line: Int = #line) async throws {
        let item = try await exists(path, fileID: fileID, line: line)
        guard item?.kind == .directory else {
            throw failure(path, expected: "a directory", actual: Self.describe(item), fileID: fileID, line: line)
        }
    }

    /// `list` of `directory` must return exactly `expected` (name to kind and, for files, size).
    func expectListing(
        _ directory: RemotePath,
        _ expected: [String: (RemoteItem.Kind, Int?)],
        fileID: String = #fileID,
        line: Int = #line
    ) async throws {
        let items = try await list(directory, fileID: fileID, line: line)
        let actual = Self.summary(of: items)
        let wanted = expected.map { name, entry in
            Self.summary(name: name, kind: entry.0, size: entry.1.map(Int64.init))
        }.sorted()
        if actual != wanted {
            throw failure(
                directory, expected: "a listing of [\(wanted.joined(separator: ", "))]",
                actual: "[\(actual.joined(separator: ", "))]", fileID: fileID, line: line
            )
        }
        if let stray = items.first(where: { $0.path.parent != directory }) {
            throw failure(
                directory, expected: "items whose paths lie directly in the listed directory",
                actual: "an item with path '\(stray.path)'", fileID: fileID, line: line
            )
        }
    }

    /// Sorted one-line descriptions of items (`name (file, 3 bytes)`), for comparisons and messages.
    static func summary(of items: [RemoteItem]) -> [String] {
        items.map { summary(name: $0.name, kind: $0.kind, size: $0.kind == .file ? $0.size : nil) }.sorted()
    }

    private static func summary(name: String, kind: RemoteItem.Kind, size: Int64?) -> String {
        switch kind {
        case .file: "'\(name)' (file, \(size.map { "\($0) bytes" } ?? "no size"))"
        case .directory: "'\(name)' (directory)"
        }
    }

    static func describe(_ item: RemoteItem?) -> String {
        guard let item else { return "no item" }
        return "a \(item.kind) at '\(item.path)'" + (item.size.map { " of \($0) bytes" } ?? "")
    }

    // MARK: Content

    /// `count` random bytes, so that no backend can pass by accident (compression, zero pages).
    static func randomData(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            let wordCount = buffer.count / 8
            for word in 0..<wordCount {
                buffer.storeBytes(of: generator.next(), toByteOffset: word * 8, as: UInt64.self)
            }
            let tail = generator.next()
            for index in (wordCount * 8)..<buffer.count {
                buffer[index] = UInt8(truncatingIfNeeded: tail >> ((index % 8) * 8))
            }
        }
        return data
    }
}
