import InMemoryRemote
import RemoteProtocol
import RemoteStoreConformance
import Testing

/// The contract suite against a fresh ``InMemoryRemoteStore``, one reported test per check. Every
/// store of a run is the same instance: in-memory storage is shared only that way.
struct InMemoryRemoteConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        let store = InMemoryRemoteStore()
        try await RemoteStoreConformance(makeStore: { store }).run(check)
    }

    /// A store that does not declare exclusive creation refuses it as `unsupported` (the default
    /// store implements it).
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformanceWithoutExclusiveCreation(_ check: RemoteStoreConformance.Check) async throws {
        let store = InMemoryRemoteStore(capabilities: InMemoryRemoteStore.capabilitiesWithoutExclusiveCreate)
        try await RemoteStoreConformance(makeStore: { store }).run(check)
    }

    /// A store that declares non-atomic replacement and no modification dates obeys the looser
    /// contract too.
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformanceWithWeakerCapabilities(_ check: RemoteStoreConformance.Check) async throws {
        let capabilities = RemoteCapabilities(serverSideCopy: false, atomicReplace: false, modificationTimePrecision: nil)
        let store = InMemoryRemoteStore(capabilities: capabilities)
        try await RemoteStoreConformance(makeStore: { store }).run(check)
    }
}
