import RemoteProtocol
import RemoteStoreConformance
import Synchronization
import Testing

/// The whole contract suite against every S3 server: moto and Ceph RGW; one reported test per
/// server and check, none skipped. S3 declares implicit directories, and the suite adjusts the
/// checks that depend on it. RGW's second gateway runs the same radosgw over the same cluster: it
/// runs the checks that involve two stores (below), with one store through each gateway, and not
/// the whole suite a second time (a third of the suite's time, for no code path of its own).
@Suite
struct S3ConformanceTests {
    /// Large files (6 MiB) go up in two parts: the store's multipart threshold and part size are
    /// set to S3's smallest part, 5 MiB.
    @Test(arguments: S3TestServer.available([.moto, .rgw]), RemoteStoreConformance.Check.allCases)
    func conformance(server: S3TestServer, check: RemoteStoreConformance.Check) async throws {
        let multipart = ["part-size": "\(5 << 20)", "multipart-threshold": "\(5 << 20)"]
        let outcome = try await RemoteStoreConformance(options: .init(largeFileSize: 6 << 20), makeStore: { try server.rootStore(settings: multipart) })
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
