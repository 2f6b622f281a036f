import Foundation
import RemoteProtocol

/// Watches a folder from its own OS thread and acts as soon as a transfer is in flight there (a
/// `.rollsync-partial-` file larger than a threshold), so the action (cancelling a task, killing
/// a server) happens mid-transfer even when Swift's cooperative pool is saturated by other tests.
enum TransferWatcher {
    /// Polls `folder` every millisecond for up to two minutes; runs `action` once the temporary
    /// file exceeds `size` bytes. Returns whether the action ran.
    static func act(
        whenTemporaryFileIn folder: URL, exceeds size: Int, _ action: @escaping @Sendable () -> Void
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline {
                    if inFlight(in: folder, exceeding: size) {
                        action()
                        continuation.resume(returning: true)
                        return
                    }
                    usleep(1000)
                }
                continuation.resume(returning: false)
            }
            thread.start()
        }
    }

    private static func inFlight(in folder: URL, exceeding size: Int) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.contains { name in
            guard name.hasPrefix(RemotePath.reservedTemporaryPrefix) else { return false }
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return (attributes?[.size] as? Int ?? 0) > size
        }
    }
}
