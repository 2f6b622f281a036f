import Foundation
import RemoteProtocol
import Testing

@testable import SyncCore

@Suite("Whole-store units an older build wrote (format 2: zlib)")
struct WholeStoreFormatTwoTests {
    @Test("a zlib-compressed unit of format 2 is installed, verified and listed as this build's own")
    func formatTwoUnitIsInstalled() async throws {
        let remote = try TestRemote(.folder)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox'); INSERT INTO note VALUES ('n1', 'f1', 'One', 'a', 1)")
        try await anna.sync()
        try await ben.sync()
        let upload = try await anna.manager.uploadWholeStore()
        #expect(upload.manifest.version == 3 && upload.manifest.compression == "zstd")
        try await Self.rewriteAsFormatTwo(upload.unit, of: "anna", on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'tail')")
        try await ben.sync()

        let carl = try TestClient("carl", remote: remote.store)
        let report = try await carl.manager.downloadWholeStore()
        #expect(try #require(report.wholeStoreInstalled).unit == upload.unit)
        #expect(report.appliedSets == 1)
        #expect(try carl.dump() == ben.dump())
        let verification = try await carl.manager.verifyRemote(VerificationOptions())
        #expect(verification.problems.isEmpty, "\(verification.problems)")
    }

    @Test("units of formats 2 and 3 side by side: the newest is installed, and one naming an unknown compression is skipped for the older")
    func mixedFormats() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        try await ben.sync()
        let annas = try await anna.manager.uploadWholeStore()
        try await Self.rewriteAsFormatTwo(annas.unit, of: "anna", on: remote)
        try ben.execute("INSERT INTO tag VALUES ('t1', 'home')")
        let bens = try await ben.manager.uploadWholeStore()

        let carl = try TestClient("carl", remote: remote.store)
        #expect(try #require(try await carl.manager.downloadWholeStore().wholeStoreInstalled).unit == bens.unit)
        #expect(try carl.dump() == ben.dump())

        let manifestPath = "\(TestRemote.wholeStores(of: "ben"))/\(bens.unit.directoryName)/\(WholeStoreManifest.manifestFileName)"
        var manifest = try #require(try JSONSerialization.jsonObject(with: try await remote.raw(manifestPath)) as? [String: Any])
        manifest["compression"] = "brotli"
        try await remote.overwrite(manifestPath, with: try JSONSerialization.data(withJSONObject: manifest))
        let dora = try TestClient("dora", remote: remote.store)
        let report = try await dora.manager.downloadWholeStore()
        #expect(try #require(report.wholeStoreInstalled).unit == annas.unit, "ben's unit cannot be expanded")
        #expect(try dora.dump() == ben.dump(), "the tail after anna's unit brings ben's tag")
    }

    /// Replaces a unit's zstd store by the same snapshot zlib-compressed, and its manifest by
    /// format 2's, as a build before format 3 wrote them.
    static func rewriteAsFormatTwo(_ unit: WholeStoreUnitName, of client: String, on remote: TestRemote) async throws {
        let directory = "\(TestRemote.wholeStores(of: client))/\(unit.directoryName)"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("format-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let zst = scratch.appendingPathComponent("store.zst"), plain = scratch.appendingPathComponent("store"), zlib = scratch.appendingPathComponent("store.zlib")
        try await remote.raw("\(directory)/store.sqlite.zst").write(to: zst)
        try ZstdStream.decompress(zst, to: plain)
        try ZlibStream.compress(plain, to: zlib)
        try await remote.overwrite("\(directory)/store.sqlite.zlib", with: try Data(contentsOf: zlib))
        try await remote.store.delete(RemotePath("\(directory)/store.sqlite.zst"))

        let manifestPath = "\(directory)/\(WholeStoreManifest.manifestFileName)"
        var manifest = try #require(try JSONSerialization.jsonObject(with: try await remote.raw(manifestPath)) as? [String: Any])
        var files = try #require(manifest["files"] as? [String: Any])
        let digest = try FileDigest.describe(zlib)
        files["store.sqlite.zlib"] = ["size": digest.size, "sha256": digest.sha256]
        files["store.sqlite.zst"] = nil
        manifest["files"] = files
        manifest["version"] = 2
        manifest["compression"] = "zlib"
        try await remote.overwrite(manifestPath, with: try JSONSerialization.data(withJSONObject: manifest))
    }
}
