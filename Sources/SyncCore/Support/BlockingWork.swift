import Foundation

/// Runs blocking work that takes long (compressing, expanding or hashing a whole store) on a
/// thread of its own, outside Swift's cooperative pool, and suspends until it returns, so other
/// tasks, timers included, keep running meanwhile. Cancelling the task does not stop work that
/// has started.
enum BlockingWork {
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try body() })
            }.start()
        }
    }
}
