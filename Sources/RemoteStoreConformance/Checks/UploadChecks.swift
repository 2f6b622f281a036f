import Foundation
import RemoteProtocol

extension ConformanceContext {
    func uploadAndDownloadRoundTripEmptyFile() async throws {
        try await expectRoundTrip(of: Data(), at: path("empty"))
    }

    func uploadAndDownloadRoundTripSmallFile() async throws {
        try await expectRoundTrip(of: Self.randomData(1), at: path("one-byte"))
        try await expectRoundTrip(of: Self.randomData(4099), at: path("small.bin"))
    }

    func uploadAndDownloadRoundTripMultiMegabyteFile() async throws {
        try await expectRoundTrip(of: Self.randomData(options.largeFileSize), at: path("large.bin"))
    }

    /// The sizes of ``Check/boundarySizesRoundTripWithExactSizes``: empty, one byte, and either
    /// side of 64 KiB and of 1 MiB, where transfer buffers and length fields break.
    static let boundarySizes = [0, 1, 65_535, 65_536, 65_537, 1_048_577]

    func boundarySizesRoundTripWithExactSizes() async throws {
        var expected: [String: (RemoteItem.Kind, Int?)] = [:]
        for size in Self.boundarySizes {
            let name = "size-\(size)"
            try await expectRoundTrip(of: Self.randomData(size), at: path(name))
            expected[name] = (.file, size)
        }
        try await expectListing(directory, expected)
    }

    /// Uploads `content` to `file` from a local file, checks its size, and downloads it to a
    /// local file whose bytes must match.
    private func expectRoundTrip(of content: Data, at file: RemotePath) async throws {
        try await withLocalFile { source in
            try await writeLocal(content, to: source)
            try await perform("upload", file) { try await store.upload(contentsOf: source, to: file) }
        }
        let item = try await exists(file)
        guard item?.kind == .file, item?.size == Int64(content.count) else {
            throw failure(file, expected: "a file of \(content.count) bytes after the upload", actual: Self.describe(item))
        }
        try await withLocalFile { destination in
            try await perform("download", file) { try await store.download(file, to: destination) }
            try await expectLocalContent(destination, content, after: "download", of: file)
        }
    }

    func uploadOverwritesExistingFile() async throws {
        let file = path("file")
        for size in [10_000, 10, 100_003, 0] {
            let content = Self.randomData(size)
            try await write(content, to: file)
            try await expectContent(file, content)
            try await expectListing(directory, ["file": (.file, size)])
        }
    }

    func uploadIsNeverVisiblePartially() async throws {
        let target = path("large.bin")
        let first = Self.randomData(options.largeFileSize)
        try await expectNeverPartiallyVisible(target, previous: nil, next: first, operation: "the upload of a new file") {
            try await write(first, to: target)
        }
        let second = Self.randomData(options.largeFileSize + 1)
        try await expectNeverPartiallyVisible(target, previous: first, next: second, operation: "the replacing upload") {
            try await write(second, to: target)
        }
    }

    func uploadIntoMissingDirectoryThrowsNotFound() async throws {
        let target = path("missing/file")
        let content = Data("content".utf8)
        guard !store.capabilities.implicitDirectories else {
            try await write(content, to: target)
            try await expectImpliedDirectory(path("missing"), holding: target, content)
            return
        }
        try await expectError(.notFound, "upload into a missing directory", target) {
            try await store.write(content, to: target)
        }
        try await expectAbsent(path("missing"), "a failed upload creates no directory")
    }

    func uploadBelowFileThrowsNotADirectory() async throws {
        try await expectErrorLeavingFile(.notADirectory, "upload below a file", at: "child") {
            try await store.write(Data("content".utf8), to: $0)
        }
    }

    func uploadOverDirectoryThrowsIsADirectory() async throws {
        let target = path("directory")
        let child = Self.randomData(10)
        try await createDirectory(target)
        try await write(child, to: target / "child")
        try await expectError(.isADirectory, "upload onto a directory", target) {
            try await store.write(Data("content".utf8), to: target)
        }
        try await expectDirectory(target)
        try await expectContent(target / "child", child)
    }

    func uploadOfMissingLocalFileThrowsLocalFile() async throws {
        let missingLocal = missingLocalDirectoryFile()
        let newTarget = path("new")
        try await expectError(.localFile, "upload of a missing local file", newTarget) {
            try await store.upload(contentsOf: missingLocal, to: newTarget)
        }
        try await expectAbsent(newTarget, "the upload of a missing local file failed")

        let existing = path("existing")
        let content = Self.randomData(100)
        try await write(content, to: existing)
        try await expectError(.localFile, "upload of a missing local file over a file", existing) {
            try await store.upload(contentsOf: missingLocal, to: existing)
        }
        try await expectContent(existing, content)
    }

    /// Cancels uploads of a large file over a small one at several points; each either completed
    /// or threw `CancellationError` and left the small file.
    func cancelledUploadLeavesPreviousContent() async throws {
        let target = path("target")
        let previous = Self.randomData(1000)
        let next = Self.randomData(options.largeFileSize)
        try await withLocalFile { source in
            try await writeLocal(next, to: source)
            for yields in Self.cancellationPoints {
                try await write(previous, to: target)
                let result = await resultOfCancelledTask(afterYields: yields) { [store] in
                    try await store.upload(contentsOf: source, to: target)
                }
                let remaining: Data
                switch result {
                case .success:
                    remaining = next
                case .failure(is CancellationError):
                    remaining = previous
                case .failure(let error):
                    throw failure(
                        target, expected: "a cancelled upload throws CancellationError (or completes)",
                        actual: "it threw \(Self.describe(error))", underlying: error
                    )
                }
                try await expectContent(target, remaining)
                try await expectListing(directory, ["target": (.file, remaining.count)])
            }
        }
    }
}
