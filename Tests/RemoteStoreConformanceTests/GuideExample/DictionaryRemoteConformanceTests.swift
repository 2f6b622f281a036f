import RemoteStoreConformance
import Testing

struct DictionaryRemoteConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        // The stores of one run must share their storage, like two connections to one server;
        // an in-memory store shares it by being the same instance.
        let store = DictionaryRemoteStore()
        try await RemoteStoreConformance(makeStore: { store }).run(check)
    }
}
