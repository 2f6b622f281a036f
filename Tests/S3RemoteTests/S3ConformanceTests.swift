import RemoteProtocol
import RemoteStoreConformance
import Synchronization
import Testing

/// The whole contract suite against every S3 server: moto, and Ceph RGW through each of its two
/// gateways; one reported test per server and check, none skipped. S3 declares implicit
/// directories, and the suite adjusts the checks that depend on it.
@Suite
struct S3ConformanceTests {
    @Test(arguments: S3TestServer.available(S3TestServer.allCases), RemoteStoreConformance.Check.allCases)
    func conformance(server: S3TestServer, check: RemoteStoreConformance.Check) async throws {
        let outcome = try await RemoteStoreConformance(options: .init(largeFileSize: 20 << 20), makeStore: { try server.rootStore() })
            .run(check)
        #expect(outcome == .passed)
    }

    /// The checks that open a second store, with the first through one RGW gateway and the second
    /// through the other: what two clients in two regions of one store see, exclusive creations
    /// racing across gateways included.
    @Test(arguments: S3TestServer.available([.rgw]).isEmpty ? [] : [
        RemoteStoreConformance.Check.secondStoreSeesWritesAndDeletes, .concurrentExclusiveCreatesHaveOneWinner,
    ])
    func conformanceAcrossGateways(_ check: RemoteStoreConformance.Check) async throws {
        let opened = Mutex(0)
        let outcome = try await RemoteStoreConformance(makeStore: {
            let gateway: S3TestServer = opened.withLock { count in
                defer { count += 1 }
                return count.isMultiple(of: 2) ? .rgw : .rgwSecondGateway
            }
            return try gateway.rootStore()
        }).run(check)
        #expect(outcome == .passed)
    }
}
