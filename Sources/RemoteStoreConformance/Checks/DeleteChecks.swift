import Foundation
import RemoteProtocol

extension ConformanceContext {
    func deleteOfMissingPathSucceeds() async throws {
        let file = path("file")
        let content = Self.randomData(10)
        try await write(content, to: file)
        for missing in [path("missing"), path("missing-directory/missing"), file / "child"] {
            try await delete(missing)
        }
        try await delete(file)
        try await delete(file)
        try await expectAbsent(file, "it was deleted")
    }

    func deleteRemovesFile() async throws {
        let file = path("file")
        try await write(Self.randomData(10), to: file)
        try await delete(file)
        try await expectAbsent(file, "it was deleted")
        try await expectListing(directory, [:])
    }

    func deleteRemovesDirectoryTree() async throws {
        let tree = path("tree")
        try await createDirectory(tree / "a/b/c")
        try await createDirectory(tree / "empty")
        try await write(Self.randomData(10), to: tree / "a/b/file")
        try await write(Self.randomData(10), to: tree / "a/file")
        try await write(Self.randomData(10), to: tree / "file")
        try await delete(tree)
        for gone in [tree, tree / "a", tree / "a/b/file", tree / "file"] {
            try await expectAbsent(gone, "its tree was deleted")
        }
        try await expectListing(directory, [:])
    }

    func deleteLeavesSiblings() async throws {
        let keptFile = Self.randomData(20)
        let keptChild = Self.randomData(30)
        try await write(Self.randomData(10), to: path("gone-file"))
        try await write(keptFile, to: path("kept-file"))
        try await createDirectory(path("gone-directory/inside"))
        try await createDirectory(path("kept-directory"))
        try await write(keptChild, to: path("kept-directory/child"))
        try await delete(path("gone-file"))
        try await delete(path("gone-directory"))
        try await expectListing(directory, ["kept-file": (.file, keptFile.count), "kept-directory": (.directory, nil)])
        try await expectContent(path("kept-file"), keptFile)
        try await expectContent(path("kept-directory/child"), keptChild)
    }

    func deleteOfRootThrowsInvalidPath() async throws {
        let file = path("file")
        let content = Self.randomData(10)
        try await write(content, to: file)
        try await expectError(.invalidPath, "delete of the root", .root) {
            try await store.delete(.root)
        }
        try await expectDirectory(directory)
        try await expectContent(file, content)
    }
}
