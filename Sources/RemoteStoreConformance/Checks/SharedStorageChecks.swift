import Foundation
import RemoteProtocol

extension ConformanceContext {
    /// Opens a second store with `makeStore` and checks, both ways, that files and directories
    /// written or deleted through one store are seen by the other; the second store is closed
    /// afterwards, also after a failure.
    func secondStoreSeesWritesAndDeletes() async throws {
        let other = try await perform("makeStore (a second store)", nil) { try await makeStore() }
        let second = ConformanceContext(check: check, store: other, directory: directory, options: options, makeStore: makeStore)
        do {
            try await expectEachSeesTheOther(self, second)
        } catch {
            await other.close()
            throw error
        }
        await other.close()
    }

    /// The exchange between the `first` and the `second` store, in the same working directory.
    private func expectEachSeesTheOther(_ first: ConformanceContext, _ second: ConformanceContext) async throws {
        let fromFirst = Self.randomData(100)
        try await first.write(fromFirst, to: path("from-first"))
        try await first.createDirectory(path("folder-from-first"))
        try await second.expectContent(path("from-first"), fromFirst)
        try await second.expectListing(directory, ["from-first": (.file, 100), "folder-from-first": (.directory, nil)])

        let fromSecond = Self.randomData(200)
        try await second.write(fromSecond, to: path("from-second"))
        try await second.createDirectory(path("folder-from-second"))
        let replacement = Self.randomData(50)
        try await second.write(replacement, to: path("from-first"))
        try await first.expectContent(path("from-second"), fromSecond)
        try await first.expectContent(path("from-first"), replacement)
        try await first.expectListing(directory, [
            "from-first": (.file, 50), "folder-from-first": (.directory, nil),
            "from-second": (.file, 200), "folder-from-second": (.directory, nil),
        ])

        try await first.delete(path("from-second"))
        try await first.delete(path("folder-from-second"))
        try await second.expectAbsent(path("from-second"), "the first store deleted it")
        try await second.delete(path("from-first"))
        try await second.delete(path("folder-from-first"))
        try await first.expectAbsent(path("from-first"), "the second store deleted it")
        try await first.expectListing(directory, [:])
        try await second.expectListing(directory, [:])
    }
}
