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
        try await expectErrorLeavingFile(.alreadyExists, "createDirectory over a file") { try await store.createDirectory(at: $0) }
    }

    func createDirectoryBelowFileThrowsNotADirectory() async throws {
        try await expectErrorLeavingFile(.notADirectory, "createDirectory below a file", at: "child/grandchild") {
            try await store.createDirectory(at: $0)
        }
    }
}
