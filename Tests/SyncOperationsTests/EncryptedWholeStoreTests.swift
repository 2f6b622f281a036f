import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import Testing

@Suite("Whole stores of encrypted applications")
struct EncryptedWholeStoreTests {
    static let marker = "MARKER-whole-store-plaintext-must-not-leak"

    @Test("whole stores, their index and manifest and vacuum markers are encrypted; a new client bootstraps from them")
    func encryptedWholeStore() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, codecProvider: EncryptionSetup(password: "pw one two").provider)
        let ben = try TestClient("ben", remote: remote.store, codecProvider: EncryptionSetup(password: "pw one two").provider)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox \(Self.marker)')")
        try await anna.sync()
        try await ben.sync()
        let upload = try await anna.manager.uploadWholeStore()
        _ = try await anna.manager.vacuum()
        #expect(try await remote.names(in: Paths.changeSets(of: "anna")).contains { $0.hasSuffix(".vacuumed") })

        for path in try await remote.allFiles() {
            let bytes = try await remote.store.read(path)
            #expect(!bytes.contains(text: Self.marker), "\(path)")
            #expect(!bytes.contains(text: "SQLite format 3"), "\(path)")
            #expect(!bytes.contains(text: upload.manifest.files[WholeStoreCompression.written.storeFileName]?.sha256 ?? "-"), "\(path)")
        }

        let carl = try TestClient("carl", remote: remote.store, codecProvider: EncryptionSetup(password: "pw one two").provider)
        let report = try await carl.sync()
        #expect(report.wholeStoreInstalled?.unit == upload.unit)
        #expect(try carl.dump() == anna.dump())
    }
}
