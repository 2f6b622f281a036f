import Foundation
import RemoteProtocol

extension ConformanceContext {
    func existsOfMissingPathReturnsNil() async throws {
        try await expectAbsent(path("missing"), "the file was never created")
        try await expectAbsent(path("missing-directory/missing"), "its parent was never created")
    }

    func existsBelowAFileReturnsNil() async throws {
        let file = path("file")
        try await write(Data("content".utf8), to: file)
        try await expectAbsent(file / "child", "its parent is a file")
    }

    func existsReportsFileKindAndSize() async throws {
        for size in [0, 1, 1234] {
            let file = path("file-\(size)")
            try await write(Self.randomData(size), to: file)
            let item = try await exists(file)
            guard let item, item.kind == .file, item.size == Int64(size), item.path == file else {
                throw failure(file, expected: "a file at '\(file)' of \(size) bytes", actual: Self.describe(item))
            }
        }
    }

    func existsReportsDirectoryKind() async throws {
        let directory = path("directory")
        try await createDirectory(directory)
        let item = try await exists(directory)
        guard let item, item.kind == .directory, item.path == directory else {
            throw failure(directory, expected: "a directory at '\(directory)'", actual: Self.describe(item))
        }
    }

    func rootExists() async throws {
        let item = try await exists(.root)
        guard let item, item.kind == .directory, item.path.isRoot else {
            throw failure(.root, expected: "the root reported as a directory", actual: Self.describe(item))
        }
    }
}
