import Foundation
import RemoteProtocol
import Synchronization

extension ConformanceContext {
    func createExclusivelyCreatesOnlyOnce() async throws {
        let target = path("created")
        let first = Self.randomData(100)
        guard store.capabilities.exclusiveCreate else {
            try await expectError(.unsupported, "createExclusively on a store without exclusiveCreate", target) {
                try await store.createExclusively(first, at: target)
            }
            try await expectAbsent(target, "an unsupported createExclusively creates nothing")
            return
        }
        try await perform("createExclusively of a new file", target) { try await store.createExclusively(first, at: target) }
        try await expectContent(target, first)
        try await expectError(.alreadyExists, "createExclusively over an existing file", target) {
            try await store.createExclusively(Self.randomData(50), at: target)
        }
        try await expectContent(target, first)
        let folder = path("folder")
        try await createDirectory(folder)
        try await write(Self.randomData(10), to: folder / "child")
        try await expectError(.alreadyExists, "createExclusively over a directory", folder) {
            try await store.createExclusively(Self.randomData(50), at: folder)
        }
        try await expectDirectory(folder)
    }

    /// Half the calls go through a second store from `makeStore`, as two clients would.
    func concurrentExclusiveCreatesHaveOneWinner() async throws {
        let target = path("contested")
        let contents = (0..<options.concurrency).map { Self.randomData(1_000 + $0) }
        let other = try await perform("makeStore (a second store)", nil) { try await makeStore() }
        let stores: [any RemoteStore] = [store, other]
        let outcomes = Mutex<[Int: RemoteStoreError.Code?]>([:])
        do {
            try await forEachConcurrently(Array(contents.indices)) { index in
                let code: RemoteStoreError.Code?
                do {
                    try await stores[index % 2].createExclusively(contents[index], at: target)
                    code = nil
                } catch let error as RemoteStoreError {
                    code = error.code
                }
                outcomes.withLock { $0[index] = code }
            }
        } catch {
            await other.close()
            throw error
        }
        await other.close()
        let results = outcomes.withLock { $0 }
        guard store.capabilities.exclusiveCreate else {
            if let (_, code) = results.first(where: { $0.value != .unsupported }) {
                throw failure(target, expected: "every createExclusively to throw unsupported", actual: "one ended with \(code.map { "\($0)" } ?? "success")")
            }
            return
        }
        let winners = results.filter { $0.value == nil }.map(\.key)
        guard winners.count == 1, let winner = winners.first else {
            throw failure(target, expected: "exactly one of \(contents.count) racing createExclusively calls to succeed", actual: "\(winners.count) succeeded")
        }
        if let (_, code) = results.first(where: { $0.value != nil && $0.value != .alreadyExists }) {
            throw failure(target, expected: "the losing calls to throw alreadyExists", actual: "one threw \(code.map { "\($0)" } ?? "")")
        }
        try await expectContent(target, contents[winner])
    }
}
