import FileRemote
import Foundation
import RemoteProtocol
import RemoteStoreConformance
import TestSupport
import Testing

/// The contract suite against ``FileRemoteStore``, one reported test per check, each in a fresh
/// temporary folder that is deleted afterwards.
struct FileRemoteConformanceTests {
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func conformance(_ check: RemoteStoreConformance.Check) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let root = folder.url
        try await RemoteStoreConformance(makeStore: { try FileRemoteStore(root: root) }).run(check)
    }
}
