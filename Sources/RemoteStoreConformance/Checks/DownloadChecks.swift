import Foundation
import RemoteProtocol

extension ConformanceContext {
    func downloadOfMissingFileThrowsNotFound() async throws {
        try await withLocalFile { local in
            for missing in [path("missing"), path("missing-directory/missing")] {
                try await expectError(.notFound, "download of a missing file", missing) {
                    try await store.download(missing, to: local)
                }
            }
        }
    }

    func downloadOfDirectoryThrowsIsADirectory() async throws {
        let target = path("directory")
        try await createDirectory(target)
        try await withLocalFile { local in
            try await expectError(.isADirectory, "download of a directory", target) {
                try await store.download(target, to: local)
            }
        }
    }

    func downloadReplacesExistingLocalFile() async throws {
        let file = path("file")
        let content = Self.randomData(100)
        try await write(content, to: file)
        try await withLocalFile { local in
            try await writeLocal(Self.randomData(5000), to: local)
            try await perform("download onto an existing local file", file) { try await store.download(file, to: local) }
            try await expectLocalContent(local, content, after: "download onto a longer local file", of: file)
        }
    }

    func immutableDownloadRoundTripsAndFailsCleanly() async throws {
        for size in [0, 1, 65_536, 65_537] {
            let file = path("immutable-\(size)")
            let content = Self.randomData(size)
            try await write(content, to: file)
            try await withLocalFile { local in
                try await writeLocal(Self.randomData(70_000), to: local)
                try await perform("downloadImmutableFile of \(size) bytes", file) { try await store.downloadImmutableFile(file, to: local) }
                try await expectLocalContent(local, content, after: "downloadImmutableFile of \(size) bytes over a longer local file", of: file)
            }
        }
        let missing = path("missing-immutable")
        try await withLocalFile { local in
            try await expectError(.notFound, "downloadImmutableFile of a missing file", missing) {
                try await store.downloadImmutableFile(missing, to: local)
            }
            if try await readLocal(local) != nil {
                throw failure(missing, expected: "a failed downloadImmutableFile creates no local file", actual: "a local file was created")
            }
        }
    }

    func downloadToMissingLocalDirectoryThrowsLocalFile() async throws {
        let file = path("file")
        try await write(Self.randomData(100), to: file)
        let local = missingLocalDirectoryFile()
        try await expectError(.localFile, "download into a missing local directory", file) {
            try await store.download(file, to: local)
        }
    }

    /// Failed downloads (a missing file, a directory) onto a fresh local path and onto an existing
    /// local file.
    func failedDownloadLeavesNoPartialLocalFile() async throws {
        let folder = path("directory")
        try await createDirectory(folder)
        let existingContent = Self.randomData(300)
        for source in [path("missing"), folder] {
            try await withLocalFile { local in
                _ = try? await store.download(source, to: local)
                if try await readLocal(local) != nil {
                    throw failure(source, expected: "a failed download creates no local file", actual: "a local file was created")
                }
                try await writeLocal(existingContent, to: local)
                _ = try? await store.download(source, to: local)
                if let left = try await readLocal(local), left != existingContent {
                    throw failure(
                        source, expected: "a failed download leaves an existing local file unchanged or removes it",
                        actual: "the local file holds \(Self.difference(expected: existingContent, actual: left) ?? "other bytes")"
                    )
                }
            }
        }
    }

    /// Cancels downloads of a large file at several points, onto a fresh local path and onto an
    /// existing local file.
    func cancelledDownloadLeavesNoLocalFile() async throws {
        let file = path("large.bin")
        let content = Self.randomData(options.largeFileSize)
        let existingContent = Self.randomData(300)
        try await write(content, to: file)
        for (index, yields) in Self.cancellationPoints.enumerated() {
            try await withLocalFile { local in
                let ontoExisting = index % 2 == 1
                if ontoExisting {
                    try await writeLocal(existingContent, to: local)
                }
                let result = await resultOfCancelledTask(afterYields: yields) { [store] in
                    try await store.download(file, to: local)
                }
                let left = try await readLocal(local)
                switch result {
                case .success:
                    try await expectLocalContent(local, content, after: "a download that completed despite cancellation", of: file)
                case .failure(is CancellationError):
                    if let left, !(ontoExisting && left == existingContent) {
                        throw failure(
                            file, expected: "a cancelled download leaves no new local file",
                            actual: "a local file of \(left.count) bytes"
                        )
                    }
                case .failure(let error):
                    throw failure(
                        file, expected: "a cancelled download throws CancellationError (or completes)",
                        actual: "it threw \(Self.describe(error))", underlying: error
                    )
                }
            }
        }
    }
}
