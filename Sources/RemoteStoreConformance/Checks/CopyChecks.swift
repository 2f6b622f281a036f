import Foundation
import RemoteProtocol

extension ConformanceContext {
    /// Writes `content` to `source` and copies it to `destination`; returns both paths.
    private func copied(_ content: Data) async throws -> (source: RemotePath, destination: RemotePath) {
        let source = path("source")
        let destination = path("destination")
        try await write(content, to: source)
        try await copy(source, to: destination)
        return (source, destination)
    }

    func copyRoundTrip() async throws {
        let content = Self.randomData(5000)
        let (source, destination) = try await copied(content)
        try await expectContent(destination, content)
        try await expectContent(source, content)
        try await expectListing(directory, ["source": (.file, content.count), "destination": (.file, content.count)])
    }

    func copyIsIndependentOfSource() async throws {
        let original = Self.randomData(1000)
        let (source, destination) = try await copied(original)
        try await write(Self.randomData(2000), to: source)
        try await expectContent(destination, original)
        try await delete(source)
        try await expectContent(destination, original)

        try await copy(destination, to: source)
        try await write(Self.randomData(3000), to: destination)
        try await expectContent(source, original)
        try await delete(destination)
        try await expectContent(source, original)
    }

    func copyOverwritesDestination() async throws {
        let destination = path("destination")
        try await write(Self.randomData(10_000), to: destination)
        for size in [10, 100_003, 0] {
            let source = path("source-\(size)")
            let content = Self.randomData(size)
            try await write(content, to: source)
            try await copy(source, to: destination)
            try await expectContent(destination, content)
        }
    }

    func copyIsNeverVisiblePartially() async throws {
        let source = path("large.bin")
        let target = path("copy.bin")
        let large = Self.randomData(options.largeFileSize)
        try await write(large, to: source)
        try await expectNeverPartiallyVisible(target, previous: nil, next: large, operation: "the copy to a new file") {
            try await copy(source, to: target)
        }
        let small = Self.randomData(1000)
        try await write(small, to: target)
        try await expectNeverPartiallyVisible(target, previous: small, next: large, operation: "the replacing copy") {
            try await copy(source, to: target)
        }
    }

    func copyOntoItselfLeavesFileUnchanged() async throws {
        let file = path("file")
        let content = Self.randomData(1000)
        try await write(content, to: file)
        try await copy(file, to: file)
        try await expectContent(file, content)
        try await expectListing(directory, ["file": (.file, content.count)])
    }

    func copyOfMissingSourceThrowsNotFound() async throws {
        let destination = path("destination")
        try await expectError(.notFound, "copy of a missing source", path("missing")) {
            try await store.copy(path("missing"), to: destination)
        }
        try await expectAbsent(destination, "the copy's source is missing")
    }

    func copyIntoMissingDirectoryThrowsNotFound() async throws {
        let source = path("source")
        try await write(Self.randomData(10), to: source)
        let destination = path("missing/destination")
        guard !store.capabilities.implicitDirectories else {
            try await copy(source, to: destination)
            try await expectImpliedDirectory(path("missing"), holding: destination, try await read(source))
            return
        }
        try await expectError(.notFound, "copy into a missing directory", destination) {
            try await store.copy(source, to: destination)
        }
        try await expectAbsent(path("missing"), "a failed copy creates no directory")
    }

    func copyOfDirectoryThrowsIsADirectory() async throws {
        let folder = path("directory")
        let file = path("file")
        let child = Self.randomData(10)
        try await createDirectory(folder)
        try await write(child, to: folder / "child")
        try await write(Self.randomData(20), to: file)
        try await expectError(.isADirectory, "copy of a directory", folder) {
            try await store.copy(folder, to: path("copy"))
        }
        try await expectAbsent(path("copy"), "copying a directory failed")
        try await expectError(.isADirectory, "copy onto a directory", folder) {
            try await store.copy(file, to: folder)
        }
        try await expectDirectory(folder)
        try await expectContent(folder / "child", child)
    }
}
