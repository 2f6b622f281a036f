import InMemoryRemote
import RemoteProtocol
import RemoteStoreConformance
import Testing

/// The contract suite against a fresh ``InMemoryRemoteStore``, one reported test per check.
struct InMemoryRemoteConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await RemoteStoreConformance(makeStore: { InMemoryRemoteStore() }).run(check)
    }

    /// A store that declares non-atomic replacement and no modification dates obeys the looser
    /// contract too.
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformanceWithWeakerCapabilities(_ check: RemoteStoreConformance.Check) async throws {
        let capabilities = RemoteCapabilities(serverSideCopy: false, atomicReplace: false, modificationTimePrecision: nil)
        try await RemoteStoreConformance(makeStore: { InMemoryRemoteStore(capabilities: capabilities) }).run(check)
    }
}
