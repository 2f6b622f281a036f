import Foundation
import RemoteTransportSupport
import Testing

/// An actor pinned to a dedicated thread, recording where its methods run.
private actor PinnedRecorder {
    private let executor: DedicatedThreadExecutor
    private var order: [Int] = []

    init(executor: DedicatedThreadExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Records `value`; returns whether it ran on the executor's thread.
    func record(_ value: Int) -> Bool {
        order.append(value)
        return executor.isCurrentThread
    }


    func recorded() -> [Int] { order }

    var recordedCount: Int { order.count }

    /// Runs `body` synchronously on the actor's thread, as a C callback would run, without isolation.
    func runSynchronously(_ body: @Sendable (PinnedRecorder) -> Int) -> Int {
        body(self)
    }
}

struct DedicatedThreadExecutorTests {
    @Test func actorMethodsRunOnTheDedicatedThread() async {
        let executor = DedicatedThreadExecutor(name: "rollsync-pinned")
        defer { executor.shutdown() }
        let recorder = PinnedRecorder(executor: executor)
        #expect(await recorder.record(1))
        #expect(!executor.isCurrentThread)
    }

    @Test func assumeIsolatedWorksOnTheExecutorsThread() async {
        let executor = DedicatedThreadExecutor(name: "rollsync-assume")
        defer { executor.shutdown() }
        let recorder = PinnedRecorder(executor: executor)
        let count = await recorder.runSynchronously { recorder in
            recorder.assumeIsolated { $0.recordedCount }
        }
        #expect(count == 0)
    }

    @Test func jobsFromManyTasksAllRunAndNoneIsLost() async {
        let executor = DedicatedThreadExecutor(name: "rollsync-test-many")
        defer { executor.shutdown() }
        let recorder = PinnedRecorder(executor: executor)
        await withTaskGroup(of: Void.self) { group in
            for value in 0..<200 {
                group.addTask { _ = await recorder.record(value) }
            }
        }
        #expect(await recorder.recorded().sorted() == Array(0..<200))
    }

    @Test func jobsEnqueuedAfterShutdownStillRun() async {
        let executor = DedicatedThreadExecutor(name: "rollsync-test-shutdown")
        let recorder = PinnedRecorder(executor: executor)
        _ = await recorder.record(1)
        executor.shutdown()
        _ = await recorder.record(2)
        #expect(await recorder.recorded() == [1, 2])
    }
}
