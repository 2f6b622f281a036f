import Foundation
import RemoteProtocol

extension ConformanceContext {
    /// The distinct files the concurrency checks write: one per task, of different sizes.
    private func distinctFiles() -> [String: Data] {
        Dictionary(uniqueKeysWithValues: (0..<options.concurrency).map { index in
            ("file-\(index)", Self.randomData(1000 + index * 4099))
        })
    }

    func concurrentUploadsOfDistinctFiles() async throws {
        let files = distinctFiles()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, content) in files {
                group.addTask { try await write(content, to: path(name)) }
            }
            try await group.waitForAll()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, content) in files {
                group.addTask { try await expectContent(path(name), content) }
            }
            try await group.waitForAll()
        }
        try await expectListing(directory, files.mapValues { (.file, $0.count) })
    }

    /// Half as many listing tasks as uploading ones list the directory until every upload is done.
    func concurrentListsWhileUploading() async throws {
        let files = distinctFiles()
        let sizes = files.mapValues { Int64($0.count) }
        let listers = Array(repeating: { @Sendable () async throws -> Void in
            let items = try await perform("list during concurrent uploads", directory) { try await store.list(directory) }
            for item in items where item.path.parent != directory || item.kind != .file || sizes[item.name] == nil
                || (item.size != nil && item.size != sizes[item.name])
            {
                throw failure(
                    directory, expected: "lists during uploads show only complete uploaded files",
                    actual: "list returned \(Self.describe(item))"
                )
            }
        }, count: max(1, options.concurrency / 2))
        try await whileWriting(observers: listers) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (name, content) in files {
                    group.addTask { try await write(content, to: path(name)) }
                }
                try await group.waitForAll()
            }
        }
        try await expectListing(directory, files.mapValues { (.file, $0.count) })
    }

    func concurrentDeletesOfSamePathSucceed() async throws {
        let tree = path("tree")
        try await createDirectory(tree / "a/b")
        for (index, file) in ["file", "a/file", "a/b/file", "a/b/other"].enumerated() {
            try await write(Self.randomData(index * 100), to: tree / file)
        }
        try await write(Self.randomData(10), to: path("file"))
        for target in [tree, path("file")] {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<options.concurrency {
                    group.addTask { try await delete(target) }
                }
                try await group.waitForAll()
            }
            try await expectAbsent(target, "it was deleted")
        }
        try await expectListing(directory, [:])
    }
}
