import Foundation
import RemoteProtocol

extension ConformanceContext {
    func listReturnsFilesAndDirectoriesWithKinds() async throws {
        try await write(Data(), to: path("empty"))
        try await write(Self.randomData(10), to: path("ten"))
        try await write(Self.randomData(1000), to: path("thousand"))
        try await createDirectory(path("folder"))
        try await createDirectory(path("full folder"))
        try await write(Self.randomData(5), to: path("full folder/inside"))
        try await expectListing(directory, [
            "empty": (.file, 0), "ten": (.file, 10), "thousand": (.file, 1000),
            "folder": (.directory, nil), "full folder": (.directory, nil),
        ])
    }

    func listIsNotRecursive() async throws {
        try await createDirectory(path("sub/deeper/deepest"))
        try await write(Self.randomData(3), to: path("sub/deeper/file"))
        try await write(Self.randomData(4), to: path("sub/file"))
        try await write(Self.randomData(5), to: path("file"))
        try await expectListing(directory, ["sub": (.directory, nil), "file": (.file, 5)])
        try await expectListing(path("sub"), ["deeper": (.directory, nil), "file": (.file, 4)])
    }

    /// Lists a directory before, during and after a large upload into it.
    func listNeverReturnsDotEntriesOrTemporaryFiles() async throws {
        try await expectListing(directory, [:])
        try await write(Self.randomData(7), to: path("small"))
        try await createDirectory(path("folder"))
        let large = Self.randomData(options.largeFileSize)
        let known: [String: Int?] = ["small": 7, "folder": nil, "large.bin": large.count]
        let observer: @Sendable () async throws -> Void = {
            let items = try await perform("list during an upload into the directory", directory) { try await store.list(directory) }
            for item in items {
                guard item.path.parent == directory, let size = known[item.name],
                    item.kind == (size == nil ? .directory : .file),
                    item.kind == .directory || item.size == nil || item.size == size.map(Int64.init)
                else {
                    throw failure(
                        directory, expected: "only the directory's complete children (\(known.keys.sorted()))",
                        actual: "list returned \(Self.describe(item))"
                    )
                }
            }
        }
        try await whileWriting(observers: [observer, observer]) {
            try await write(large, to: path("large.bin"))
        }
        try await expectListing(directory, ["small": (.file, 7), "folder": (.directory, nil), "large.bin": (.file, large.count)])
        try await expectListing(path("folder"), [:])
    }

    func temporaryFilesAreNeverOrdinaryFiles() async throws {
        try await write(Self.randomData(7), to: path("small"))
        try await createDirectory(path("folder"))
        let check: @Sendable (String) async throws -> Void = { moment in
            let files = try await perform("temporaryFiles \(moment)", directory) { try await store.temporaryFiles(in: directory) }
            for file in files where !file.name.hasPrefix(RemotePath.reservedTemporaryPrefix) || file.directory != directory {
                throw failure(directory, expected: "only temporary files of the directory", actual: "temporaryFiles \(moment) returned '\(file)'")
            }
        }
        try await whileWriting(observers: [{ try await check("during an upload") }]) {
            try await write(Self.randomData(options.largeFileSize), to: path("large.bin"))
        }
        let left = try await perform("temporaryFiles after the uploads", directory) { try await store.temporaryFiles(in: directory) }
        guard left.isEmpty else {
            throw failure(directory, expected: "no temporary file once every upload has finished", actual: "\(left.map(\.description))")
        }
        let missing = TemporaryFile(directory: directory, name: RemotePath.reservedTemporaryPrefix + "never-written")
        do {
            try await store.deleteTemporaryFile(missing)
        } catch let error as RemoteStoreError where error.code == .unsupported {
            return
        } catch {
            throw failure(directory, expected: "deleting a missing temporary file succeeds", actual: "it threw \(error)")
        }
    }

    func listOfEmptyDirectoryIsEmpty() async throws {
        try await expectListing(directory, [:])
        try await createDirectory(path("empty"))
        try await expectListing(path("empty"), [:])
    }

    /// Fills one directory with ``RemoteStoreConformance/Options/largeDirectoryEntryCount``
    /// entries (every 100th a directory, files of 0 to 6 bytes), uploading
    /// ``RemoteStoreConformance/Options/concurrency`` at a time, then lists it once.
    func largeDirectoryListsEveryEntryOnce() async throws {
        let folder = path("large")
        try await createDirectory(folder)
        let count = options.largeDirectoryEntryCount
        let entries: [(name: String, size: Int?)] = (0..<count).map { index in
            (String(format: "entry-%06d", index), index % 100 == 99 ? nil : index % 7)
        }
        try await forEachConcurrently(entries) { entry in
            if let size = entry.size {
                try await write(Self.randomData(size), to: folder / entry.name)
            } else {
                try await createDirectory(folder / entry.name)
            }
        }
        let items = try await list(folder)
        let expected = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.size) })
        var seen = Set<String>()
        var problems: [String] = []
        for item in items {
            if !seen.insert(item.name).inserted {
                problems.append("'\(item.name)' twice")
            } else if item.path.parent != folder {
                problems.append("an item with path '\(item.path)'")
            } else if let size = expected[item.name] {
                let wanted: RemoteItem.Kind = size == nil ? .directory : .file
                if item.kind != wanted || (item.kind == .file && item.size != size.map(Int64.init)) {
                    problems.append(Self.describe(item) + " instead of a \(wanted)" + (size.map { " of \($0) bytes" } ?? ""))
                }
            } else {
                problems.append("'\(item.name)', which was never written")
            }
        }
        let missing = entries.map(\.name).filter { !seen.contains($0) }
        if !missing.isEmpty {
            problems.append("no \(missing.count) of the entries (first: \(missing.prefix(3).joined(separator: ", ")))")
        }
        if !problems.isEmpty {
            throw failure(
                folder, expected: "a listing of all \(count) entries, each once",
                actual: "\(items.count) items, with \(problems.prefix(5).joined(separator: "; "))"
            )
        }
    }

    func listOfMissingDirectoryThrowsNotFound() async throws {
        for missing in [path("missing"), path("missing/deeper")] {
            try await expectError(.notFound, "list of a missing directory", missing) {
                _ = try await store.list(missing)
            }
        }
    }

    func listOfFileThrowsNotADirectory() async throws {
        try await expectErrorLeavingFile(.notADirectory, "list of a file") { _ = try await store.list($0) }
    }

    func modificationDatesAreReportedWhenDeclared() async throws {
        guard let precision = store.capabilities.modificationTimePrecision else { return }
        let file = path("file")
        try await write(Self.randomData(10), to: file)
        let fromExists = try await exists(file)
        let fromList = try await list(directory).first { $0.path == file }
        for (operation, item) in [("exists", fromExists), ("list", fromList)] where item?.modificationDate == nil {
            throw failure(
                file, expected: "\(operation) reports a modification date (the store declares a precision of \(precision))",
                actual: Self.describe(item) + " without a date"
            )
        }
    }
}
