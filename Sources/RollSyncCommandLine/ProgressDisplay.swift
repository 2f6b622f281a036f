import Foundation
import SyncCore

/// Shows the progress events of a sync or a whole-store transfer on standard error: a bar redrawn
/// in place on a terminal (phase, items, bytes), one line per phase otherwise, nothing with `--json`.
final class ProgressDisplay: Sendable {
    private let task: Task<Void, Never>
    private let interactive: Bool

    /// Starts showing `events` (unless `quiet`).
    init(_ events: AsyncStream<SyncProgress>, quiet: Bool) {
        let interactive = !quiet && Console.standardErrorIsTerminal
        self.interactive = interactive
        task = Task {
            guard !quiet else { return }
            var lastPhase: SyncProgress.Phase?
            for await event in events where event.phase != .finished {
                if interactive {
                    Console.writeError("\r\u{1B}[2K" + Self.bar(event))
                } else if event.phase != lastPhase {
                    Console.writeError("\(event.phase.rawValue)…\n")
                }
                lastPhase = event.phase
            }
        }
    }

    /// Runs `operation` on `document` while its progress is shown (unless `quiet`); the display is
    /// cleared before this returns or throws.
    static func showing<Result: Sendable>(
        _ document: DocumentSyncManager,
        quiet: Bool,
        _ operation: (DocumentSyncManager) async throws -> Result
    ) async throws -> Result {
        let progress = ProgressDisplay(document.progressEvents(), quiet: quiet)
        do {
            let result = try await operation(document)
            await progress.finish()
            return result
        } catch {
            await progress.finish()
            throw error
        }
    }

    /// Stops showing progress and clears the bar.
    func finish() async {
        task.cancel()
        await task.value
        if interactive { Console.writeError("\r\u{1B}[2K") }
    }

    /// `downloading      [#######.............] 3/8 sets  12.0 kB/40.1 kB`; the items of a
    /// whole-store phase are files.
    static func bar(_ event: SyncProgress) -> String {
        let width = 20
        let fraction: Double = if event.bytesTotal > 0 {
            Double(event.bytesDone) / Double(event.bytesTotal)
        } else if event.itemsTotal > 0 {
            Double(event.itemsDone) / Double(event.itemsTotal)
        } else {
            0
        }
        let filled = max(0, min(width, Int(fraction * Double(width))))
        var line = event.phase.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
        line += " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        if event.itemsTotal > 0 {
            line += " \(event.itemsDone)/\(event.itemsTotal) " + (event.phase.isWholeStoreTransfer ? "files" : "sets")
        }
        if event.bytesDone > 0 || event.bytesTotal > 0 {
            line += "  " + SyncResult.bytes(event.bytesDone)
            if event.bytesTotal > 0 { line += "/" + SyncResult.bytes(event.bytesTotal) }
        }
        return line
    }
}
