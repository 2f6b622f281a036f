import Foundation
import InMemoryRemote
import RemoteProtocol
import Synchronization
import Testing

@testable import SyncCore

/// Two clients creating the same encrypted application at the same moment: `format.json` is
/// created exclusively, so one wins, and the other adopts the winner's format and data key
/// (deleting the key file it had published) instead of leaving a key nobody's data uses.
@Suite("Concurrent creation of one application")
struct ConcurrentApplicationCreationTests {
    @Test("both clients create the application at once: one wins, both end with its format and its key")
    func oneCreatorWins() async throws {
        let base = InMemoryRemoteStore()
        let barrier = ArrivalBarrier(count: 2)
        let setups = [try EncryptionSetup(password: "same password"), try EncryptionSetup(password: "same password")]
        let managers = [
            try setups[0].applicationManager("anna", store: FormatFileRendezvous(base: base, barrier: barrier)),
            try setups[1].applicationManager("ben", store: FormatFileRendezvous(base: base, barrier: barrier)),
        ]
        async let first = managers[0].register()
        async let second = managers[1].register()
        let registrations = try await [first, second]

        #expect(registrations.filter(\.createdApplication).count == 1, "exactly one client created the application")
        #expect(registrations[0].format.createdBy == registrations[1].format.createdBy, "the loser adopts the winner's format.json")
        let keyFiles = try await base.list(RemotePath("\(Paths.app)/Encryption")).map(\.name)
        #expect(keyFiles.count == 1, "only the winner's key file is left: \(keyFiles)")
        let keys = setups.map { $0.keyStore.load(applicationID: TestClient.applicationID)?.id }
        #expect(keys[0] != nil && keys[0] == keys[1], "both clients cache the winner's data key")
        #expect(keyFiles.first.map { name in keys[0].map { name.contains($0.hex) } ?? false } == true)
    }

    @Test("a store without exclusive creation keeps the plain write (both think they created it, as before)")
    func withoutExclusiveCreationTheWriteIsPlain() async throws {
        let base = InMemoryRemoteStore(capabilities: InMemoryRemoteStore.capabilitiesWithoutExclusiveCreate)
        let registration = try await EncryptionSetup(password: nil).applicationManager("anna", store: base).register()
        #expect(registration.createdApplication)
        #expect(try await base.exists(RemotePath("\(Paths.app)/format.json")) != nil)
    }
}

/// Lets `count` callers through together: each waits in ``arrive()`` until all have arrived.
private actor ArrivalBarrier {
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arrive() async {
        if waiting.count + 1 >= count {
            waiting.forEach { $0.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Forwards to an in-memory store, but holds every creation of a `format.json` until both
/// clients are about to create it, so the race is certain.
private struct FormatFileRendezvous: RemoteStore {
    let base: InMemoryRemoteStore
    let barrier: ArrivalBarrier

    var capabilities: RemoteCapabilities { base.capabilities }
    func exists(_ path: RemotePath) async throws -> RemoteItem? { try await base.exists(path) }
    func createDirectory(at path: RemotePath) async throws { try await base.createDirectory(at: path) }
    func upload(contentsOf localFile: URL, to path: RemotePath) async throws { try await base.upload(contentsOf: localFile, to: path) }
    func createExclusively(contentsOf localFile: URL, at path: RemotePath) async throws {
        if path.name == "format.json" { await barrier.arrive() }
        try await base.createExclusively(contentsOf: localFile, at: path)
    }
    func download(_ path: RemotePath, to localFile: URL) async throws { try await base.download(path, to: localFile) }
    func copy(_ source: RemotePath, to destination: RemotePath) async throws { try await base.copy(source, to: destination) }
    func list(_ directory: RemotePath) async throws -> [RemoteItem] { try await base.list(directory) }
    func delete(_ path: RemotePath) async throws { try await base.delete(path) }
}
