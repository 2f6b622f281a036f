import CryptoPrimitives
import Foundation
import RemoteProtocol
import TestSupport
import Testing

@testable import SyncCore

/// Decrypts files with a reader written from Docs/RemoteFormat.md ("Encrypted file") alone, calling
/// the primitives (each checked against its standard's vectors in CryptoPrimitivesTests) directly,
/// so the documentation and the codec cannot drift apart.
@Suite("The documented encrypted-file layout")
struct EncryptedFileSpecTests {
    /// The documented reader: header fields, HKDF file key, counter nonces with a final flag,
    /// header ‖ path as associated data.
    static func documentedDecrypt(_ file: [UInt8], dataKey: [UInt8], path: String) throws -> [UInt8] {
        let header = Array(file[0..<54])
        #expect(Array(header[0..<4]) == [0x52, 0x53, 0x45, 0x46])
        #expect(header[4] == 0x01)
        let chunkSize = 1 << Int(header[5])
        let salt = Array(header[22..<54])
        let fileKey = HKDFSHA256.deriveKey(
            inputKeyMaterial: dataKey,
            salt: salt,
            info: Array("RollingSync file key v1".utf8),
            outputByteCount: 32
        )
        let aad = header + Array(path.utf8)
        var plaintext: [UInt8] = []
        var offset = 54
        var index: UInt64 = 0
        while offset < file.count {
            let end = min(offset + chunkSize + 16, file.count)
            let isFinal = end == file.count
            var nonce = withUnsafeBytes(of: index.bigEndian, Array.init) + [0, 0, 0]
            nonce.append(isFinal ? 1 : 0)
            plaintext += try AES256GCM.open(
                file[offset..<(end - 16)], tag: file[(end - 16)..<end], key: fileKey, nonce: nonce, authenticating: aad
            )
            offset = end
            index += 1
        }
        return plaintext
    }

    @Test("a reader written from the documentation decrypts what the codec writes", arguments: [0, 17, 65_536, 150_000])
    func documentedReader(size: Int) throws {
        let scratch = try TemporaryDirectory(prefix: "synccore")
        let dataKey = DataKey.random()
        let path: RemotePath = "com.example.notes/Documents/notebook/WholeStore/anna/store.sqlite"
        let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        try Data(plain).write(to: scratch.appending("plain"))
        try EncryptingCodec(dataKey: dataKey).encode(scratch.appending("plain"), into: scratch.appending("coded"), for: path)
        let coded = Array(try Data(contentsOf: scratch.appending("coded")))
        #expect(Array(coded[6..<22]) == dataKey.id.bytes)
        #expect(try Self.documentedDecrypt(coded, dataKey: dataKey.bytes, path: path.string) == plain)
    }

    @Test("a key file unwrapped as documented gives the data key")
    func documentedKeyFile() async throws {
        let applicationID = try SyncIdentifier("com.example.notes")
        let dataKey = DataKey.random()
        let password = try #require(EncryptionPassword("se\u{301}same"))
        let wrapped = try await WrappedDataKey.wrap(
            dataKey, password: password, parameters: .weakForTestingOnly, generation: 1, applicationID: applicationID)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(wrapped)) as? [String: Any])
        let salt = try #require((json["salt"] as? String).flatMap { Data(base64Encoded: $0) })
        let sealed = try #require((json["sealedKey"] as? String).flatMap { Data(base64Encoded: $0) })
        try #require(sealed.count == 60)
        // The documented derivation: scrypt over the NFC UTF-8 password ("sésame" composed).
        let wrappingKey = try await ScryptParameters.weakForTestingOnly.deriveKey(
            from: try #require(EncryptionPassword("s\u{E9}same")), salt: Array(salt))
        let keyID = try #require(json["keyID"] as? String)
        // The sealed key: nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes).
        let opened = try AES256GCM.open(
            sealed[12..<44],
            tag: sealed[44...],
            key: wrappingKey,
            nonce: sealed[..<12],
            authenticating: Array("RollingSync wrapped data key v1\ncom.example.notes\n\(keyID)".utf8)
        )
        #expect(Array(opened) == dataKey.bytes)
    }
}
