import Foundation
import RemoteProtocol
import RemoteStoreConformance
import SFTPRemote
import Testing

/// The contract suite against the real sshd, one reported test per check. Every check opens its
/// own store (its own SSH connections) on the same server folder; the suite works in a unique
/// directory inside it.
@Suite("SFTPRemote conformance", .enabled(if: SFTPTestServer.isEnabled, SFTPTestServer.skipReason))
struct SFTPRemoteConformanceTests {
    static let folder = "conformance-\(UUID().uuidString)"

    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        let server = try SFTPTestServer.current()
        let url = URL(string: "\(server.url.absoluteString)/\(Self.folder)")!
        try await RemoteStoreConformance(makeStore: { try await server.makeStore(url: url) }).run(check)
    }
}
