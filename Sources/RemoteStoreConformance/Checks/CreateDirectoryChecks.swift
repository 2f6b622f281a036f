import Foundation
import RemoteProtocol

extension ConformanceContext {
    func createDirectoryCreatesIntermediates() async throws {
        try await createDirectory(path("a/b/c"))
        for directory in [path("a"), path("a/b"), path("a/b/c")] {
            try await expectDirectory(directory)
        }
        try await expectListing(path("a"), ["b": (.directory, nil)])
    }

    func createDirectoryOnExistingDirectorySucceeds() async throws {
        let directory = path("directory")
        let content = Self.randomData(100)
        try await createDirectory(directory)
        try await write(content, to: directory / "file")
        try await createDirectory(directory)
        try await expectListing(directory, ["file": (.file, content.count)])
        try await expectContent(directory / "file", content)
    }

    /// Only the run's own directory is compared: other runs may share the root at the same time.
    func createDirectoryOfRootSucceeds() async throws {
        let content = Self.randomData(10)
        try await write(content, to: path("file"))
        try await createDirectory(.root)
        try await expectDirectory(.root)
        try await expectDirectory(directory)
        try await expectListing(directory, ["file": (.file, content.count)])
    }

    func createDirectoryOverFileThrowsAlreadyExists() async throws {
        let file = path("file")
        let content = Self.randomData(10)
        try await write(content, to: file)
        try await expectError(.alreadyExists, "createDirectory over a file", file) {
            try await store.createDirectory(at: file)
        }
        try await expectContent(file, content)
    }

    func createDirectoryBelowFileThrowsNotADirectory() async throws {
        let file = path("file")
        let content = Self.randomData(10)
        try await write(content, to: file)
        let target = file / "child/grandchild"
        try await expectError(.notADirectory, "createDirectory below a file", target) {
            try await store.createDirectory(at: target)
        }
        try await expectContent(file, content)
    }
}
