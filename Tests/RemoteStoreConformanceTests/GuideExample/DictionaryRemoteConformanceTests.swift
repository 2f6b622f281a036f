import RemoteStoreConformance
import Testing

struct DictionaryRemoteConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        try await RemoteStoreConformance(makeStore: { DictionaryRemoteStore() }).run(check)
    }
}
