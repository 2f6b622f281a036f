import Foundation
import RemoteProtocol
import TestSupport
import Testing

@testable import SyncCore

@Suite("Data keys, their wrapping and their local cache")
struct EncryptionKeyTests {
    let applicationID = try! SyncIdentifier("com.example.notes")
    let password = EncryptionPassword("Tr0ub4dor&3 sésame")!

    @Test("a password never shows its text in descriptions, debug descriptions or dumps")
    func passwordIsRedacted() {
        var dumped = ""
        dump(password, to: &dumped)
        for text in ["\(password)", String(reflecting: password), dumped, "\(DataKey.random())"] {
            #expect(!text.contains("Tr0ub4dor"))
            #expect(text.contains("redacted") || text.contains("EncryptionPassword"))
        }
        #expect(EncryptionPassword("") == nil)
    }

    @Test("composed and decomposed accents give the same password")
    func unicodeNormalisation() {
        #expect(EncryptionPassword("s\u{E9}same")!.bytes == EncryptionPassword("se\u{301}same")!.bytes)
    }

    @Test("the right password unwraps the data key; a wrong one, another application or an altered file does not")
    func wrapAndUnwrap() async throws {
        let dataKey = DataKey.random()
        let wrapped = try await WrappedDataKey.wrap(
            dataKey, password: password, parameters: .weakForTestingOnly, generation: 1, applicationID: applicationID)
        #expect(wrapped.keyID == dataKey.id.hex)
        #expect(wrapped.salt.count == 32)
        #expect(try await wrapped.unwrap(password: password, applicationID: applicationID)?.bytes == dataKey.bytes)
        #expect(try await wrapped.unwrap(password: EncryptionPassword("tr0ub4dor&3 sésame")!, applicationID: applicationID) == nil)
        #expect(try await wrapped.unwrap(password: password, applicationID: SyncIdentifier("com.example.other")) == nil)
        var otherID = wrapped
        otherID.keyID = DataKeyID.random().hex
        #expect(try await otherID.unwrap(password: password, applicationID: applicationID) == nil)
        var otherSalt = wrapped
        otherSalt.salt[0] ^= 1
        #expect(try await otherSalt.unwrap(password: password, applicationID: applicationID) == nil)
        // A sealed key cut short (no room for a nonce and a tag, or no ciphertext) or with a byte
        // changed is a wrong password too, never a crash.
        for length in [0, 27, 28, 59] {
            var cut = wrapped
            cut.sealedKey = wrapped.sealedKey.prefix(length)
            #expect(try await cut.unwrap(password: password, applicationID: applicationID) == nil, "\(length) bytes")
        }
        var flipped = wrapped
        flipped.sealedKey[flipped.sealedKey.startIndex + 20] ^= 1
        #expect(try await flipped.unwrap(password: password, applicationID: applicationID) == nil)
    }

    @Test("key files list their derivation parameters in readable JSON; hostile parameters are refused")
    func keyFileJSON() async throws {
        let wrapped = try await WrappedDataKey.wrap(
            .random(), password: password, parameters: .weakForTestingOnly, generation: 3, applicationID: applicationID)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(wrapped)) as? [String: Any]
        let scrypt = try #require(json?["scrypt"] as? [String: Int])
        #expect(scrypt == ["log2N": 10, "r": 8, "p": 1])
        #expect(json?["generation"] as? Int == 3)
        #expect(json?["format"] as? String == "RollingSync wrapped data key")
        var hostile = try #require(json)
        hostile["scrypt"] = ["log2N": 40, "r": 8, "p": 1]
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(WrappedDataKey.self, from: JSONSerialization.data(withJSONObject: hostile))
        }
        #expect(ScryptParameters(log2N: 9, r: 8, p: 1) == nil)
        #expect(ScryptParameters(log2N: 14, r: 8, p: 1) != nil)
        // Each bound alone allowed 16 GiB (2^22 × 32 × 128 bytes) and 16 times its work: the
        // memory scrypt needs and its work are bounded as products.
        hostile["scrypt"] = ["log2N": 22, "r": 32, "p": 1]
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(WrappedDataKey.self, from: JSONSerialization.data(withJSONObject: hostile))
        }
        #expect(ScryptParameters(log2N: 20, r: 16, p: 1) == nil, "2 GiB")
        #expect(ScryptParameters(log2N: 20, r: 8, p: 4) == nil, "32 times the recommended work")
        #expect(ScryptParameters(log2N: 20, r: 8, p: 1) != nil, "1 GiB")
        #expect(ScryptParameters(log2N: 17, r: 8, p: 16) != nil, "16 times the recommended work")
    }

    @Test("key file names carry generation and key id, order by generation, and ignore foreign names")
    func keyFileNames() throws {
        let id = DataKeyID.random()
        let name = WrappedKeyName(generation: 2, keyID: id)
        let parsed = try #require(WrappedKeyName(fileName: name.fileName))
        #expect(parsed == name)
        #expect(parsed.keyID == id)
        #expect(name.fileName.hasPrefix("DataKey-00000002-\(id.hex)-"))
        #expect(WrappedKeyName(generation: 10, keyID: id) > WrappedKeyName(generation: 9, keyID: .random()))
        for foreign in ["ReadMe.txt", "DataKey-1-\(id.hex)-0000abcd.json", "DataKey-00000001-\(id.hex).json",
            "DataKey-00000001-\(id.hex)-0000ABCD.json", "DataKey-00000001-xyz-0000abcd.json", ".DataKey-00000001-\(id.hex)-0000abcd.json"]
        {
            #expect(WrappedKeyName(fileName: foreign) == nil, "\(foreign)")
        }
    }

    @Test("the local key file is owner-only, round-trips, and an unreadable one counts as absent")
    func localKeyFile() throws {
        let scratch = try TemporaryDirectory(prefix: "synccore")
        let keys = DataKeyFileStore(directory: scratch.appending("keys"))
        #expect(keys.load(applicationID: applicationID) == nil)
        let dataKey = DataKey.random()
        try keys.save(dataKey, applicationID: applicationID)
        let file = keys.file(for: applicationID)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directoryAttributes = try FileManager.default.attributesOfItem(atPath: scratch.appending("keys").path)
        #expect((directoryAttributes[.posixPermissions] as? Int) == 0o700)
        let loaded = try #require(keys.load(applicationID: applicationID))
        #expect(loaded.id == dataKey.id)
        #expect(loaded.bytes == dataKey.bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.appending("keys").path) == ["com.example.notes.datakey"])

        try Data("garbage".utf8).write(to: file)
        #expect(keys.load(applicationID: applicationID) == nil)
        try keys.remove(applicationID: applicationID)
        try keys.remove(applicationID: applicationID)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
