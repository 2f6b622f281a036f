import RemoteProtocol
import RemoteStoreConformance
import Testing

/// The whole contract suite against the moto S3 server: one reported test per check, none
/// skipped. S3 declares implicit directories, and the suite adjusts the checks that depend on it.
@Suite(.enabled(if: S3TestServer.enabled))
struct S3ConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        let outcome = try await RemoteStoreConformance(options: .init(largeFileSize: 20 << 20), makeStore: { try S3TestServer.rootStore() })
            .run(check)
        #expect(outcome == .passed)
    }
}
