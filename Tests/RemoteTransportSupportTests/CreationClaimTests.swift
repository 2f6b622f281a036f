import RemoteProtocol
@testable import RemoteTransportSupport
import Synchronization
import Testing

/// ``CreationClaim`` against a simulated server whose directory creation is atomic and whose
/// rename overwrites (paramiko's SFTP server, Apache's `MOVE` between its check and its rename).
struct CreationClaimTests {
    /// The simulated server: which creator's file stands at the target, and whether the claim
    /// directory exists.
    private final class Server: Sendable {
        let state = Mutex<(target: Int?, claimed: Bool, overwrites: Int)>((nil, false, 0))

        /// The claim's four requests for `creator`; the rename looks, yields (another request may
        /// run on the server meanwhile), then overwrites whatever stands there.
        func create(_ creator: Int, claim: CreationClaim) async throws {
            try await claim.create(
                at: "contested",
                targetExists: { state.withLock { $0.target != nil } },
                claim: {
                    state.withLock {
                        if $0.claimed { return false }
                        $0.claimed = true
                        return true
                    }
                },
                release: { state.withLock { $0.claimed = false } },
                place: {
                    let wasThere = state.withLock { $0.target != nil }
                    await Task.yield()
                    state.withLock {
                        if wasThere || $0.target != nil { $0.overwrites += 1 }
                        $0.target = creator
                    }
                }
            )
        }
    }

    @Test func ofRacingCreatorsOneWinsWhereTheRenameOverwrites() async throws {
        for _ in 0..<20 {
            let server = Server()
            let claim = CreationClaim(forTargetNamed: "contested")
            let outcomes = await withTaskGroup(of: (Int, RemoteStoreError.Code?).self) { group in
                for creator in 0..<16 {
                    group.addTask {
                        do {
                            try await server.create(creator, claim: claim)
                            return (creator, nil)
                        } catch {
                            return (creator, (error as? RemoteStoreError)?.code ?? .io)
                        }
                    }
                }
                return await group.reduce(into: [Int: RemoteStoreError.Code?]()) { $0[$1.0] = $1.1 }
            }
            let winners = outcomes.filter { $0.value == nil }.map(\.key)
            #expect(winners.count == 1)
            #expect(outcomes.values.allSatisfy { $0 == nil || $0 == .alreadyExists })
            let (target, claimed, overwrites) = server.state.withLock { ($0.target, $0.claimed, $0.overwrites) }
            #expect(target == winners.first)
            #expect(!claimed, "the winner removes its claim")
            #expect(overwrites == 0)
        }
    }

    @Test func aClaimThatStaysIsTakenOverAfterTheWait() async throws {
        let server = Server()
        server.state.withLock { $0.claimed = true }
        try await server.create(7, claim: CreationClaim(forTargetNamed: "contested", abandonedAfter: .milliseconds(40)))
        #expect(server.state.withLock { $0.target } == 7)
        #expect(server.state.withLock { $0.claimed } == false)
    }

    /// Pauses of 5, 10 and 20 ms (35 ms waited) and then of 120 ms carry the wait past
    /// `abandonedAfter` (40 ms) and past three times it in one step: the waiter takes the claim
    /// over rather than give up on it.
    @Test func aLongLastPauseStillTakesTheClaimOver() async throws {
        let server = Server()
        server.state.withLock { $0.claimed = true }
        var claim = CreationClaim(forTargetNamed: "contested", abandonedAfter: .milliseconds(40))
        let factors = Mutex([0.5, 0.5, 0.5, 1.5][...])
        claim.jitter = { factors.withLock { $0.popFirst() ?? 1.5 } }
        try await server.create(7, claim: claim)
        #expect(server.state.withLock { $0.target } == 7)
        #expect(factors.withLock { $0.isEmpty })
    }

    /// A server that answers "the claim exists" whatever is done (MKCOL refused with 405 on a
    /// location that does not allow it) does not keep a creator waiting forever.
    @Test func aClaimThatCannotBeTakenEndsTheWait() async throws {
        await #expect {
            try await CreationClaim(forTargetNamed: "x", abandonedAfter: .milliseconds(20)).create(
                at: "x", targetExists: { false }, claim: { false }, release: {}, place: {}
            )
        } throws: { ($0 as? RemoteStoreError)?.code == .unavailable }
    }

    @Test func aWaiterAnswersAlreadyExistsWhenTheHolderPlacesItsFile() async throws {
        let server = Server()
        server.state.withLock { $0.claimed = true }
        let waiter = Task { try await server.create(2, claim: CreationClaim(forTargetNamed: "contested", abandonedAfter: .seconds(600))) }
        try await Task.sleep(for: .milliseconds(30))
        server.state.withLock {
            $0.target = 1
            $0.claimed = false
        }
        await #expect { try await waiter.value } throws: { ($0 as? RemoteStoreError)?.code == .alreadyExists }
        #expect(server.state.withLock { $0.target } == 1)
    }

    @Test func aFailedPlacementReleasesTheClaim() async throws {
        let claimed = Mutex(false)
        await #expect(throws: RemoteStoreError.self) {
            try await CreationClaim(forTargetNamed: "x").create(
                at: "x",
                targetExists: { false },
                claim: { claimed.withLock { $0 = true }; return true },
                release: { claimed.withLock { $0 = false } },
                place: { throw RemoteStoreError(.unavailable) }
            )
        }
        #expect(!claimed.withLock { $0 })
    }

    @Test func theClaimNameIsHiddenFixedAndShort() throws {
        let long = String(repeating: "n", count: 255)
        let names = ["format.json", "format.jsoN", long].map { CreationClaim(forTargetNamed: $0).name }
        #expect(names.allSatisfy { $0.hasPrefix(RemotePath.reservedTemporaryPrefix) && $0.utf8.count <= 64 })
        #expect(Set(names).count == 3)
        #expect(CreationClaim(forTargetNamed: "format.json").name == names[0])
        #expect(throws: RemoteStoreError.self) { try RemotePath(components: [names[0]]) }
    }
}
