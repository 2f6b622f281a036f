import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import Testing

@Suite("Encrypted applications: registration, passwords, key changes")
struct EncryptedRegistrationTests {
    static let password = "correct horse battery staple"
    static let newPassword = "tr0ub4dor and sésame"

    @Test("the first client decides to encrypt: format.json says so, the wrapped key is readable JSON, the local key is 0600", arguments: Backend.allCases)
    func firstRegistrationEncrypts(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let annaKeys = try EncryptionSetup(password: Self.password)
        let registration = try await annaKeys.applicationManager("anna", store: remote.store).register()
        #expect(registration.createdApplication)
        #expect(registration.format.encrypted)
        #expect(annaKeys.reasons.isEmpty, "creating the data asks only for a new password")

        let keyFiles = try await remote.names(in: "\(Paths.app)/Encryption")
        #expect(keyFiles.count == 1)
        let keyFile = try #require(keyFiles.first)
        #expect(keyFile.hasPrefix("DataKey-00000001-"))
        let json = try JSONSerialization.jsonObject(with: await remote.store.read(RemotePath("\(Paths.app)/Encryption/\(keyFile)"))) as? [String: Any]
        #expect(json?["scrypt"] as? [String: Int] == ["log2N": 10, "r": 8, "p": 1])
        #expect((json?["salt"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 32)

        let format = try JSONSerialization.jsonObject(with: await remote.store.read(RemotePath("\(Paths.app)/format.json"))) as? [String: Any]
        #expect(format?["encrypted"] as? Bool == true)
        let deviceInfo = try await remote.store.read(RemotePath("\(Paths.app)/ClientDevices/anna/deviceInfo.json"))
        #expect(deviceInfo.prefix(4) == Data("RSEF".utf8))

        let localKey = annaKeys.keyStore.file(for: TestClient.applicationID)
        #expect(try FileManager.default.attributesOfItem(atPath: localKey.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test("a client that supplies no password for a new application stores it unencrypted")
    func noPasswordMeansNoEncryption() async throws {
        let remote = try TestRemote(.memory)
        let annaKeys = try EncryptionSetup(password: nil)
        let registration = try await annaKeys.applicationManager("anna", store: remote.store).register()
        #expect(!registration.format.encrypted)
        #expect(try await remote.names(in: "\(Paths.app)/Encryption").isEmpty)
        let deviceInfo = try await remote.store.read(RemotePath("\(Paths.app)/ClientDevices/anna/deviceInfo.json"))
        #expect(deviceInfo.first == UInt8(ascii: "{"))
        let ben = try await EncryptionSetup(password: nil).applicationManager("ben", store: remote.store).register()
        #expect(!ben.createdApplication)
    }

    @Test("joining needs the password; a wrong one is reported without leaking and can be retried; the key is then cached", arguments: Backend.allCases)
    func joiningAndWrongPassword(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        _ = try await EncryptionSetup(password: Self.password).applicationManager("anna", store: remote.store).register()

        let benKeys = try EncryptionSetup(password: nil)
        let ben = try benKeys.applicationManager("ben", store: remote.store)
        let missing = await #expect(throws: SyncError.self) { try await ben.register() }
        #expect(missing?.code == .passwordRequired)

        let wrong = "correct horse battery stapler"
        benKeys.answer(wrong)
        let refused = await #expect(throws: SyncError.self) { try await ben.register() }
        #expect(refused?.code == .wrongPassword)
        let texts = [refused, missing].compactMap { $0 }.flatMap { error -> [String] in
            var dumped = ""
            dump(error, to: &dumped)
            return ["\(error)", String(reflecting: error), error.message, dumped]
        }
        for text in texts {
            #expect(!text.contains(wrong) && !text.contains(Self.password), "\(text)")
        }
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna"], "a refused client registers nothing")

        benKeys.answer(Self.password)
        let registration = try await ben.register()
        #expect(registration.addedClient)
        #expect(benKeys.reasons == [.noCachedKey, .noCachedKey, .noCachedKey])

        benKeys.answer(nil)
        let afterRestart = try await benKeys.applicationManager("ben", store: remote.store).register()
        #expect(!afterRestart.addedClient)
        #expect(benKeys.reasons.count == 3, "the cached key is used: no password asked")
    }

    @Test("a password change re-wraps the key only; other clients keep syncing with their cached key; newcomers need the new password", arguments: Backend.allCases)
    func passwordChange(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let annaKeys = try EncryptionSetup(password: Self.password)
        let benKeys = try EncryptionSetup(password: Self.password)
        let anna = try TestClient("anna", remote: remote.store, codecProvider: annaKeys.provider)
        let ben = try TestClient("ben", remote: remote.store, codecProvider: benKeys.provider)
        try anna.execute("INSERT INTO tag VALUES ('t1', 'before the change')")
        try await anna.sync()
        try await ben.sync()
        let dataFiles = try await remote.allFiles().filter { !$0.string.contains("/Encryption/") }
        var before: [RemotePath: Data] = [:]
        for path in dataFiles {
            before[path] = try await remote.store.read(path)
        }
        let oldKeyFile = try #require(try await remote.names(in: "\(Paths.app)/Encryption").first)

        let old = try #require(EncryptionPassword(Self.password))
        let new = try #require(EncryptionPassword(Self.newPassword))
        let wrongOld = await #expect(throws: SyncError.self) {
            try await annaKeys.provider.changePassword(of: TestClient.applicationID, in: remote.store, from: new, to: old)
        }
        #expect(wrongOld?.code == .wrongPassword)
        #expect(try await remote.names(in: "\(Paths.app)/Encryption") == [oldKeyFile])

        try await annaKeys.provider.changePassword(of: TestClient.applicationID, in: remote.store, from: old, to: new)
        let keyFiles = try await remote.names(in: "\(Paths.app)/Encryption")
        #expect(keyFiles.count == 1)
        #expect(keyFiles.first?.hasPrefix("DataKey-00000002-") == true)
        #expect(keyFiles.first?.split(separator: "-")[2] == oldKeyFile.split(separator: "-")[2], "the data key is the same")
        for path in dataFiles {
            #expect(try await remote.store.read(path) == before[path], "\(path) was not rewritten")
        }

        try anna.execute("INSERT INTO tag VALUES ('t2', 'after the change')")
        try await anna.sync()
        try await ben.sync()
        #expect(try ben.value("SELECT label FROM tag WHERE id = 't2'") == "after the change".databaseValue)
        let askedBefore = benKeys.reasons.count
        benKeys.answer(nil)
        _ = try await benKeys.applicationManager("ben", store: remote.store).register()
        #expect(benKeys.reasons.count == askedBefore, "ben's cached key still matches after the password change")

        let carlKeys = try EncryptionSetup(password: Self.password)
        let carl = try TestClient("carl", remote: remote.store, codecProvider: carlKeys.provider)
        let stale = await #expect(throws: SyncError.self) { try await carl.sync() }
        #expect(stale?.code == .wrongPassword)
        carlKeys.answer(Self.newPassword)
        try await carl.sync()
        #expect(try carl.dump() == anna.dump())
    }

    @Test("a client whose cached key no longer matches the remote data is told so and asked again")
    func cachedKeyNoLongerMatches() async throws {
        let remote = try TestRemote(.folder)
        let annaKeys = try EncryptionSetup(password: Self.password)
        let benKeys = try EncryptionSetup(password: Self.password)
        _ = try await annaKeys.applicationManager("anna", store: remote.store).register()
        _ = try await benKeys.applicationManager("ben", store: remote.store).register()

        try await remote.store.delete(RemotePath(Paths.app))
        try annaKeys.keyStore.remove(applicationID: TestClient.applicationID)
        let recreated = try await annaKeys.applicationManager("anna", store: remote.store).register()
        #expect(recreated.createdApplication)

        benKeys.answer(nil)
        let ben = try benKeys.applicationManager("ben", store: remote.store)
        let error = await #expect(throws: SyncError.self) { try await ben.register() }
        #expect(error?.code == .passwordRequired)
        #expect(error?.message.contains("created again") == true)
        #expect(benKeys.reasons == [.noCachedKey, .cachedKeyNoLongerMatches])
        benKeys.answer(Self.password)
        #expect(try await ben.register().addedClient)
    }

    @Test("encrypted data whose format.json was altered to say unencrypted is refused, not written in clear")
    func downgradeIsRefused() async throws {
        let remote = try TestRemote(.memory)
        let annaKeys = try EncryptionSetup(password: Self.password)
        _ = try await annaKeys.applicationManager("anna", store: remote.store).register()
        let formatPath = try RemotePath("\(Paths.app)/format.json")
        let format = try await remote.store.read(formatPath)
        let altered = try #require(String(data: format, encoding: .utf8)?.replacingOccurrences(of: "\"encrypted\" : true", with: "\"encrypted\" : false"))
        #expect(altered != String(data: format, encoding: .utf8))
        try await remote.store.write(Data(altered.utf8), to: formatPath)

        let newcomer = await #expect(throws: SyncError.self) {
            try await EncryptionSetup(password: nil).applicationManager("ben", store: remote.store).register()
        }
        #expect(newcomer?.code == .corruptRemoteData)
        #expect(newcomer?.message.contains("refusing to write in clear") == true)

        for keyFile in try await remote.names(in: "\(Paths.app)/Encryption") {
            try await remote.store.delete(RemotePath("\(Paths.app)/Encryption/\(keyFile)"))
        }
        let member = await #expect(throws: SyncError.self) {
            try await annaKeys.applicationManager("anna", store: remote.store).register()
        }
        #expect(member?.code == .corruptRemoteData)
        #expect(try await remote.names(in: "\(Paths.app)/ClientDevices") == ["anna"])
    }

    @Test("a key file left by an interrupted creation is superseded by the next creator's key")
    func interruptedCreation() async throws {
        let remote = try TestRemote(.folder)
        let annaKeys = try EncryptionSetup(password: Self.password)
        _ = try await annaKeys.applicationManager("anna", store: remote.store).register()
        // What a creation interrupted before its last file leaves: the key file, no format.json,
        // and no registered client (a client registers once format.json exists).
        try await remote.store.delete(RemotePath("\(Paths.app)/format.json"))
        try await remote.store.delete(RemotePath("\(Paths.app)/ClientDevices/anna"))
        let stale = try #require(try await remote.names(in: "\(Paths.app)/Encryption").first)

        let benKeys = try EncryptionSetup(password: "another password")
        let created = try await benKeys.applicationManager("ben", store: remote.store).register()
        #expect(created.createdApplication)
        let keyFiles = try await remote.names(in: "\(Paths.app)/Encryption")
        #expect(keyFiles.count == 1)
        #expect(keyFiles.first != stale)
        #expect(keyFiles.first?.hasPrefix("DataKey-00000002-") == true)
        benKeys.answer(nil)
        _ = try await benKeys.applicationManager("ben", store: remote.store).register()
        #expect(benKeys.reasons.isEmpty, "ben's cached key is the current one")
    }
}
