import Foundation
import RemoteProtocol
import Synchronization

/// Progress shared between a writing task and the tasks that observe it, so observers look for
/// exactly as long as the write runs, without sleeping.
final class WriteProgress: Sendable {
    private let finished = Atomic<Bool>(false)
    private let observationCount = Atomic<Int>(0)

    var isFinished: Bool { finished.load(ordering: .acquiring) }
    var observations: Int { observationCount.load(ordering: .relaxed) }

    func finish() { finished.store(true, ordering: .releasing) }
    func recordObservation() { observationCount.add(1, ordering: .relaxed) }
}

extension ConformanceContext {
    /// The most observations one observer makes, so that a store that never finishes a write
    /// cannot keep the suite looping forever.
    static let maximumObservations = 100_000

    /// The most `Task.yield()`s the writer waits for the observers' first looks.
    static let maximumYieldsBeforeWriting = 10_000

    /// Runs `write` while every observer runs `observe` over and over (it receives the progress
    /// and records what it saw), from before the write starts until it has finished. The write
    /// starts once every observer has looked at least once (or after a bounded number of yields).
    /// The first failure of any task is thrown; the others are cancelled.
    func whileWriting(
        observers: [@Sendable () async throws -> Void],
        write: @escaping @Sendable () async throws -> Void
    ) async throws {
        let progress = WriteProgress()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for observe in observers {
                group.addTask {
                    var count = 0
                    while !progress.isFinished && count < Self.maximumObservations {
                        try await observe()
                        progress.recordObservation()
                        count += 1
                        await Task.yield()
                    }
                }
            }
            group.addTask {
                defer { progress.finish() }
                var yields = 0
                while progress.observations < observers.count && yields < Self.maximumYieldsBeforeWriting {
                    await Task.yield()
                    yields += 1
                }
                try await write()
            }
            try await group.waitForAll()
        }
    }

    /// Writes `next` at `target` with `write` while other tasks repeatedly ask `exists` and
    /// download `target`: every observation must be the `previous` content, the complete `next`
    /// content, or (for a new file, or a replacement without atomic replace) no file.
    func expectNeverPartiallyVisible(
        _ target: RemotePath,
        previous: Data?,
        next: Data,
        operation: String,
        write: @escaping @Sendable () async throws -> Void
    ) async throws {
        let absenceAllowed = previous == nil || !store.capabilities.atomicReplace
        let allowedContents = [previous, next].compactMap { $0 }
        let allowed = [
            previous.map { "the previous \($0.count) bytes" }, "the complete \(next.count) new bytes",
            absenceAllowed ? "no file" : nil,
        ].compactMap { $0 }.joined(separator: " or ")
        let expected = "while \(operation) runs, readers see \(allowed)"

        let existsObserver: @Sendable () async throws -> Void = {
            let item = try await perform("exists during \(operation)", target) { try await store.exists(target) }
            switch item {
            case nil where absenceAllowed:
                return
            case let item? where item.kind == .file && (item.size == nil || allowedContents.contains { Int64($0.count) == item.size }):
                return
            default:
                throw failure(target, expected: expected, actual: "exists returned \(Self.describe(item))")
            }
        }
        let readObserver: @Sendable () async throws -> Void = {
            let content: Data
            do {
                content = try await store.read(target)
            } catch RemoteStoreError.Code.notFound where absenceAllowed {
                return
            } catch let error as CancellationError where Task.isCancelled {
                throw error
            } catch {
                throw failure(target, expected: expected, actual: "download threw \(Self.describe(error))", underlying: error)
            }
            if !allowedContents.contains(content) {
                let difference = Self.difference(expected: next, actual: content) ?? "other bytes"
                throw failure(target, expected: expected, actual: "a download returned \(difference)")
            }
        }
        try await whileWriting(observers: [existsObserver, readObserver, readObserver], write: write)
        try await expectContent(target, next)
    }

    /// Runs `body` for every element, with at most ``RemoteStoreConformance/Options/concurrency``
    /// calls in flight. The first failure is thrown; the calls still running are cancelled.
    func forEachConcurrently<Element: Sendable>(
        _ elements: [Element],
        _ body: @escaping @Sendable (Element) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, element) in elements.enumerated() {
                if index >= options.concurrency {
                    try await group.next()
                }
                group.addTask { try await body(element) }
            }
            try await group.waitForAll()
        }
    }

    /// Runs `body` in a new task that is cancelled, either before it starts (`yields == 0`) or
    /// after the caller has yielded `yields` times, and returns how it ended.
    func resultOfCancelledTask(afterYields yields: Int, _ body: @escaping @Sendable () async throws -> Void) async -> Result<Void, any Error> {
        let task = Task {
            if yields == 0 {
                withUnsafeCurrentTask { $0?.cancel() }
            }
            try await body()
        }
        if yields > 0 {
            for _ in 0..<yields {
                await Task.yield()
            }
            task.cancel()
        }
        return await task.result
    }

    /// The numbers of yields after which the cancellation checks cancel a transfer: before it
    /// starts, and at a few points while it may be running.
    static let cancellationPoints = [0, 1, 4, 16, 64]
}
