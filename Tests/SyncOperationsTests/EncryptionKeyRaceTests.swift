import Foundation
import RemoteProtocol
import Testing
@testable import SyncCore

/// Two clients creating one encrypted application at once each write a key file; the loser
/// deletes its own once the winner's `format.json` is there. Until then a third client must not
/// take the loser's key (it would encrypt with a key whose file is about to go, and nobody else
/// could read what it writes): `format.json` records the data key, and readers and password
/// changes use that key's file whatever other key files exist.
@Suite("Encryption: the key format.json records")
struct EncryptionKeyRaceTests {
    static let password = "correct horse battery staple"

    /// Leaves a key file of another data key with a higher generation, as a creation race's
    /// loser does until it deletes it.
    static func leaveLosersKeyFile(on remote: TestRemote) async throws -> WrappedKeyName {
        let directory = RemoteKeyDirectory(store: remote.store, applicationID: TestClient.applicationID)
        let newest = try #require(try await directory.currentName())
        let key = DataKey.random()
        let wrapped = try await WrappedDataKey.wrap(
            key, password: try #require(EncryptionPassword(password)), parameters: .weakForTestingOnly,
            generation: newest.generation + 5, applicationID: TestClient.applicationID
        )
        return try await directory.publish(wrapped, keyID: key.id, replacingOlder: false)
    }

    @Test("a joining client and a password change use the recorded key, not a newer key file of another key")
    func recordedKeyWins() async throws {
        let remote = try TestRemote(.memory)
        let annaKeys = try EncryptionSetup(password: Self.password)
        let anna = try TestClient("anna", remote: remote.store, codecProvider: annaKeys.provider)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        let format = try JSONSerialization.jsonObject(with: await remote.store.read(RemotePath("\(Paths.app)/format.json"))) as? [String: Any]
        let recorded = try #require(format?["dataKeyID"] as? String)
        let losers = try await Self.leaveLosersKeyFile(on: remote)
        #expect(losers.keyID.hex != recorded)

        let ben = try TestClient("ben", remote: remote.store, codecProvider: EncryptionSetup(password: Self.password).provider)
        let report = try await ben.sync()
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(try ben.dump() == anna.dump(), "ben reads anna's sets: he took the recorded key")

        let newPassword = try #require(EncryptionPassword("a new password"))
        try await annaKeys.provider.changePassword(
            of: TestClient.applicationID, in: remote.store, from: try #require(EncryptionPassword(Self.password)), to: newPassword
        )
        let keyFiles = try await RemoteKeyDirectory(store: remote.store, applicationID: TestClient.applicationID).names()
        #expect(keyFiles.map(\.keyID.hex) == [recorded], "the new wrapping is of the recorded key, above every generation; the others are gone")
        #expect(try #require(keyFiles.first).generation > losers.generation)
        let carl = try TestClient("carl", remote: remote.store, codecProvider: EncryptionSetup(password: "a new password").provider)
        try await carl.sync()
        #expect(try carl.dump() == anna.dump())
    }

    @Test("an application created before format.json recorded the key still opens with the newest key file")
    func olderFormatFileWithoutKeyID() async throws {
        let remote = try TestRemote(.memory)
        let anna = try TestClient("anna", remote: remote.store, codecProvider: EncryptionSetup(password: Self.password).provider)
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox')")
        try await anna.sync()
        let path = try RemotePath("\(Paths.app)/format.json")
        let json = try JSONSerialization.jsonObject(with: await remote.store.read(path))
        var format = try #require(json as? [String: Any])
        #expect(format.removeValue(forKey: "dataKeyID") != nil)
        try await remote.store.write(try JSONSerialization.data(withJSONObject: format), to: path)
        let ben = try TestClient("ben", remote: remote.store, codecProvider: EncryptionSetup(password: Self.password).provider)
        try await ben.sync()
        #expect(try ben.dump() == anna.dump())
    }
}
