import Foundation
import RemoteTransportSupport
import Testing

/// An actor pinned to a dedicated thread, recording where its methods run.
private actor PinnedRecorder {
    private let executor: DedicatedThreadExecutor
    private var order: [Int] = []

    init(executor: DedicatedThreadExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func record(_ value: Int) -> String? {
        order.append(value)
        return Thread.current.name
    }

    func recorded() -> [Int] { order }
}

struct DedicatedThreadExecutorTests {
    @Test func actorMethodsRunOnTheDedicatedThread() async {
        let executor = DedicatedThreadExecutor(name: "rollsync-pinned")
        defer { executor.shutdown() }
        let recorder = PinnedRecorder(executor: executor)
        let threadName = await recorder.record(1)
        #expect(threadName == "rollsync-pinned")
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
