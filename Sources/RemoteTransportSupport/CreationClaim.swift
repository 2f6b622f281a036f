import RemoteProtocol

/// Exclusive creation on servers whose final rename or `MOVE` does not refuse an existing target
/// atomically.
///
/// Apache's mod_dav checks `Overwrite: F` when a `MOVE` starts and then renames over whatever
/// stands there by then; paramiko's SFTP server renames onto an existing file. On both, two
/// creators racing could each believe they created the file. What every such server does
/// atomically is create a directory (`mkdir(2)` fails with `EEXIST`), so creators race for a
/// *claim*: a hidden directory beside the target, named from the target's name (``name``). The
/// creator that makes it looks again that the target is absent, moves its finished file into
/// place and removes the claim; only then can another creator hold it, and that one finds the
/// target. Holding a claim lasts one look and one move: the upload itself happens before.
///
/// A creator that finds the claim taken waits, looking again with growing, jittered pauses (10 ms
/// up to 1 s), until the target appears (`alreadyExists`) or the claim is gone (it races again). A
/// claim that stays while the target stays absent for ``abandonedAfter`` of waiting was left by a
/// creator that stopped while holding it (a crash, a dropped connection whose cleanup failed); the
/// waiter removes it and races again. The wait is several times the backends' transfer timeouts,
/// so a live holder is not taken for a dead one; two waiters taking over the same abandoned claim
/// at the same moment could still both win, a window the jitter keeps to a few requests after a
/// crash. A waiter that cannot get the claim after three such periods gives up (`unavailable`). The
/// claim's name starts with ``RemotePath/reservedTemporaryPrefix``, so listings hide it and no user
/// path can take it.
public struct CreationClaim: Sendable {
    /// The claim directory's name, in the target's directory: the reserved prefix, `claim-`, and a
    /// 64-bit FNV-1a hash of the target's name in hex. Two names with the same hash only share a
    /// claim, which makes their creators wait for each other, never answer wrongly.
    public let name: String
    /// How long a waiter waits for a claim that does not go away before taking it as abandoned.
    public var abandonedAfter: Duration
    /// The factor of each pause, in 0.5...1.5; random, replaced by tests that need given pauses.
    var jitter: @Sendable () -> Double = { Double.random(in: 0.5...1.5) }

    /// The claim for creating the file named `targetName` (its last path component).
    public init(forTargetNamed targetName: String, abandonedAfter: Duration = .seconds(120)) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in targetName.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        name = RemotePath.reservedTemporaryPrefix + "claim-" + String(repeating: "0", count: 16 - hex.count) + hex
        self.abandonedAfter = abandonedAfter
    }

    /// Creates the file at `path` under the claim; each closure is one request of the backend.
    ///
    /// - Parameters:
    ///   - targetExists: whether anything stands at `path`.
    ///   - claim: creates the claim directory; true if this call created it, false if it already
    ///     existed (the backend looks when the server's refusal does not say which).
    ///   - release: removes the claim directory; a missing one is success. It must work in a
    ///     cancelled task (a backend whose requests stop on cancellation sends it from a task of
    ///     its own), or a cancelled creation leaves a claim that delays the next one.
    ///   - place: moves the finished file onto `path`; it may still throw `alreadyExists` where a
    ///     plain upload (which takes no claim) got there first.
    /// - Throws: `alreadyExists` when something stands at `path`; the closures' errors. The claim
    ///   is released whatever `place` throws.
    public func create(
        at path: RemotePath,
        isolation: isolated (any Actor)? = #isolation,
        targetExists: () async throws -> Bool,
        claim: () async throws -> Bool,
        release: () async throws -> Void,
        place: () async throws -> Void
    ) async throws {
        var waited = Duration.zero
        var waitedInAll = Duration.zero
        var pause = Duration.milliseconds(10)
        while true {
            if try await targetExists() { throw Self.alreadyExists(path) }
            if try await claim() {
                do {
                    if try await targetExists() { throw Self.alreadyExists(path) }
                    try await place()
                } catch {
                    try? await release()
                    throw error
                }
                // The file is in place: a claim left behind only delays a creator of the same name
                // after a deletion, by `abandonedAfter`.
                try? await release()
                return
            }
            // Taking over comes before giving up: one long pause can carry both totals past their
            // limits at once, and a waiter must not give up on a claim it never took over.
            if waited >= abandonedAfter {
                try await release()
                waited = .zero
                continue
            }
            if waitedInAll >= abandonedAfter * 3 {
                throw RemoteStoreError(.unavailable, path: path, message: "another creator kept the claim \(name) and the file never appeared")
            }
            // Jittered, so that waiters that met at one claim do not look again in step.
            let sleep = pause * jitter()
            try await Task.sleep(for: sleep)
            waited += sleep
            waitedInAll += sleep
            pause = min(pause * 2, .seconds(1))
        }
    }

    private static func alreadyExists(_ path: RemotePath) -> RemoteStoreError {
        RemoteStoreError(.alreadyExists, path: path, message: "something already exists at this path")
    }
}
