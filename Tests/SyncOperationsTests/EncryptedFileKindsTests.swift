import Foundation
import RemoteProtocol
import Testing

@testable import SyncCore

@Suite("Every kind of remote file, encrypted")
struct EncryptedFileKindsTests {
    static let marker = "MARKER-c0ffee-in-every-file"

    @Test("every file kind round-trips through the encrypting codec and is stored without its plaintext", arguments: Backend.allCases)
    func everyKindRoundTrips(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let setup = try EncryptionSetup(password: "correct horse battery staple")
        let layout = ApplicationLayout(applicationID: TestClient.applicationID)
        let (codec, encrypted, _) = try await setup.provider.codecForNewApplication(layout: layout, store: remote.store)
        #expect(encrypted)
        let coded = CodedRemote(store: remote.store, codec: codec)
        let anna = try SyncIdentifier("anna")
        let ben = try SyncIdentifier("ben")
        let document = layout.document(TestClient.documentID)
        let device = DeviceInfo(clientID: anna, description: "Anna's laptop \(Self.marker)", registeredAt: Date())
        let wholeStore = Data(repeating: 0xA5, count: 3 << 20) + Data(Self.marker.utf8) + Data(repeating: 0x5A, count: 123)

        let files: [(String, RemotePath, Data)] = [
            ("device info", layout.deviceInfo(anna), try JSONEncoder().encode(device)),
            ("deleted-document tombstone", layout.deletedDocumentTombstone(TestClient.documentID), Data("{\"doc\": \"\(Self.marker)\"}".utf8)),
            ("application client tombstone", layout.deletedClientTombstone(ben), try JSONEncoder().encode(device)),
            ("document info", document.documentInfo, Data("{\"description\": \"\(Self.marker)\"}".utf8)),
            (
                "integrity key",
                try IntegrityKeyFile.path(
                    for: UUID().uuidString, of: document, format: RemoteFormatFile(encrypted: true, createdBy: anna, createdAt: Date())
                ),
                Data()
            ),
            ("change set", document.changeSets(of: anna) / "0001938a6c1f0003-\(UUID().uuidString).syncchg", Data("RSCS\(Self.marker)".utf8)),
            ("last-sync marker", document.recentSync(RecentSyncName(clientID: anna, date: Date())), Data("{\"clientID\": \"\(Self.marker)\"}".utf8)),
            ("document client tombstone", document.deletedClientTombstone(ben), try JSONEncoder().encode(device)),
            ("whole store", document.wholeStores(of: anna) / "store.sqlite", wholeStore),
        ]
        for (kind, path, content) in files {
            if let parent = path.parent {
                try await coded.createDirectory(parent)
            }
            try await coded.write(content, to: path)
            let stored = try await remote.store.read(path)
            #expect(stored.prefix(4) == Data("RSEF".utf8), "\(kind) is encrypted")
            #expect(!stored.contains(text: Self.marker), "\(kind) is stored without its plaintext")
            let chunks = max(1, (content.count + 65_535) / 65_536)
            #expect(stored.count == 54 + content.count + 16 * chunks, "\(kind) has the documented size")
            #expect(try await coded.read(path) == content, "\(kind) round-trips")
        }
        try await coded.writeJSON(device, to: layout.deviceInfo(anna))
        let decodedDevice = try await coded.readJSON(DeviceInfo.self, from: layout.deviceInfo(anna))
        #expect(decodedDevice.description == device.description)
    }
}
