import CryptoPrimitives
import Foundation
import Testing

/// Every primitive against the published test vectors of its standard, and AES-GCM's refusals.
@Suite("Cryptographic primitives (libcrypto)")
struct CryptoPrimitivesTests {
    @Test("SHA-256 and MD5 give FIPS 180-4's and RFC 1321's digests, whole or in pieces")
    func digests() {
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash(Data())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(MD5.hash(Data("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(hex(MD5.hash([UInt8]())) == "d41d8cd98f00b204e9800998ecf8427e")
        let message = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let data = Data(message)
        var hasher = SHA256Hasher()
        for start in stride(from: 0, to: message.count, by: 7_777) {
            // Slices of one Data: their indices start where they sit in it, not at 0.
            hasher.update(data[start..<min(start + 7_777, message.count)])
        }
        hasher.update(Data())
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    @Test("HMAC-SHA-256 gives RFC 4231's codes (test case 2, and 6 with a key longer than a block)")
    func hmac() {
        let code = HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(hex(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let longKey = HMACSHA256.authenticationCode(
            for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8), key: [UInt8](repeating: 0xaa, count: 131)
        )
        #expect(hex(longKey) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("HKDF-SHA-256 gives RFC 5869's keys (test cases 1 and 3, the second with no salt)")
    func hkdf() {
        let inputKeyMaterial = [UInt8](repeating: 0x0b, count: 22)
        let first = HKDFSHA256.deriveKey(
            inputKeyMaterial: inputKeyMaterial, salt: Array(0x00...0x0c), info: Array(0xf0...0xf9), outputByteCount: 42
        )
        #expect(hex(first) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let unsalted = HKDFSHA256.deriveKey(inputKeyMaterial: inputKeyMaterial, salt: [UInt8](), info: [UInt8](), outputByteCount: 42)
        #expect(hex(unsalted) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test("scrypt gives RFC 7914's keys; parameters it cannot run are a typed failure")
    func scrypt() throws {
        let empty = try Scrypt.deriveKey(password: [UInt8](), salt: [UInt8](), log2N: 4, r: 1, p: 1, outputByteCount: 64)
        #expect(hex(empty) == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906")
        let nacl = try Scrypt.deriveKey(password: Array("password".utf8), salt: Array("NaCl".utf8), log2N: 10, r: 8, p: 16, outputByteCount: 64)
        #expect(hex(nacl) == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
        // 32 MiB and 3 KiB: above libcrypto's default memory limit, so this fails unless the limit
        // is raised to what the parameters need.
        let aboveDefaultLimit = try Scrypt.deriveKey(
            password: Array("password".utf8), salt: Array("NaCl".utf8), log2N: 15, r: 8, p: 1, outputByteCount: 32
        )
        #expect(hex(aboveDefaultLimit) == "3fa85118fffe9732da7f4c63ef61f5c6458144d036401f8829dd4e5b2c50c51f")
        expectInvalidArgument { try Scrypt.deriveKey(password: [UInt8](), salt: [UInt8](), log2N: 0, r: 1, p: 1, outputByteCount: 32) }
        // r · p ≥ 2^30, which libcrypto refuses before allocating anything.
        let refused = #expect(throws: CryptoFailure.self) {
            try Scrypt.deriveKey(password: [UInt8](), salt: [UInt8](), log2N: 1, r: 1 << 15, p: 1 << 15, outputByteCount: 32)
        }
        guard case .libraryFailure(call: "EVP_PBE_scrypt", let reason) = refused else {
            Issue.record("\(String(describing: refused)) is not libcrypto refusing the parameters")
            return
        }
        #expect(!reason.isEmpty)
    }

    static let key = bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    static let nonce = bytes("cafebabefacedbaddecaf888")
    static let associatedData = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    static let plaintext = bytes("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")

    @Test("AES-256-GCM gives the GCM specification's ciphertext and tags (test cases 13 and 16) and opens them")
    func aesGCMVectors() throws {
        let sealed = try AES256GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticating: Self.associatedData)
        #expect(hex(sealed.ciphertext) == "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662")
        #expect(hex(sealed.tag) == "76fc6ece0f4e1768cddf8853bb2d551b")
        let opened = try AES256GCM.open(sealed.ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticating: Self.associatedData)
        #expect(opened == Self.plaintext)
        // The same from slices of one Data (indices not starting at 0), as files are read.
        let file = Data([0xEE] + Self.nonce + sealed.ciphertext + sealed.tag + Self.associatedData)
        let nonceEnd = 1 + Self.nonce.count, tagStart = nonceEnd + sealed.ciphertext.count, tagEnd = tagStart + AES256GCM.tagByteCount
        let fromSlices = try AES256GCM.open(
            file[nonceEnd..<tagStart], tag: file[tagStart..<tagEnd], key: Self.key, nonce: file[1..<nonceEnd], authenticating: file[tagEnd...]
        )
        #expect(fromSlices == Self.plaintext)

        let zeros = [UInt8](repeating: 0, count: 32)
        let empty = try AES256GCM.seal([UInt8](), key: zeros, nonce: zeros.prefix(12), authenticating: [UInt8]())
        #expect(empty.ciphertext.isEmpty)
        #expect(hex(empty.tag) == "530f8afbc74536b9a963b4f1c4cb738b")
        #expect(try AES256GCM.open([UInt8](), tag: empty.tag, key: zeros, nonce: zeros.prefix(12), authenticating: [UInt8]()).isEmpty)
    }

    @Test("AES-256-GCM refuses a changed byte of the ciphertext, tag, nonce, key or associated data, and wrong sizes")
    func aesGCMRefusals() throws {
        let sealed = try AES256GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticating: Self.associatedData)
        func open(_ ciphertext: [UInt8], _ tag: [UInt8], _ key: [UInt8], _ nonce: [UInt8], _ associatedData: [UInt8]) throws -> [UInt8] {
            try AES256GCM.open(ciphertext, tag: tag, key: key, nonce: nonce, authenticating: associatedData)
        }
        let flipped = { (bytes: [UInt8], index: Int) -> [UInt8] in
            var copy = bytes
            copy[index] ^= 0x01
            return copy
        }
        let authenticationFailed = CryptoFailure.authenticationFailed
        #expect(throws: authenticationFailed) { try open(flipped(sealed.ciphertext, 10), sealed.tag, Self.key, Self.nonce, Self.associatedData) }
        #expect(throws: authenticationFailed) { try open(sealed.ciphertext, flipped(sealed.tag, 15), Self.key, Self.nonce, Self.associatedData) }
        #expect(throws: authenticationFailed) { try open(sealed.ciphertext, sealed.tag, flipped(Self.key, 0), Self.nonce, Self.associatedData) }
        #expect(throws: authenticationFailed) { try open(sealed.ciphertext, sealed.tag, Self.key, flipped(Self.nonce, 11), Self.associatedData) }
        #expect(throws: authenticationFailed) { try open(sealed.ciphertext, sealed.tag, Self.key, Self.nonce, flipped(Self.associatedData, 3)) }
        #expect(throws: authenticationFailed) { try open(sealed.ciphertext, sealed.tag, Self.key, Self.nonce, []) }
        #expect(throws: authenticationFailed) { try open(Array(sealed.ciphertext.dropLast()), sealed.tag, Self.key, Self.nonce, Self.associatedData) }
        expectInvalidArgument { try open(sealed.ciphertext, sealed.tag, Array(Self.key.prefix(16)), Self.nonce, Self.associatedData) }
        expectInvalidArgument { try open(sealed.ciphertext, sealed.tag, Self.key, Self.nonce + [0], Self.associatedData) }
        expectInvalidArgument { try open(sealed.ciphertext, Array(sealed.tag.prefix(12)), Self.key, Self.nonce, Self.associatedData) }
        expectInvalidArgument { try AES256GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce.prefix(8), authenticating: [UInt8]()).tag }
    }

    @Test("the combined form is nonce, ciphertext and tag, with a fresh nonce each time")
    func aesGCMCombined() throws {
        let first = try AES256GCM.sealCombined(Self.plaintext, key: Self.key, authenticating: Self.associatedData)
        let second = try AES256GCM.sealCombined(Self.plaintext, key: Self.key, authenticating: Self.associatedData)
        #expect(first.count == AES256GCM.nonceByteCount + Self.plaintext.count + AES256GCM.tagByteCount)
        #expect(first.prefix(12) != second.prefix(12), "two seals draw two nonces")
        let separately = try AES256GCM.open(
            first[12..<(first.count - 16)], tag: first.suffix(16), key: Self.key, nonce: first.prefix(12), authenticating: Self.associatedData
        )
        #expect(separately == Self.plaintext)
        #expect(try AES256GCM.openCombined(second, key: Self.key, authenticating: Self.associatedData) == Self.plaintext)
        #expect(throws: CryptoFailure.authenticationFailed) {
            try AES256GCM.openCombined(first.prefix(27), key: Self.key, authenticating: Self.associatedData)
        }
    }
}

/// Records an issue unless `body` throws ``CryptoFailure/invalidArgument(_:)``.
private func expectInvalidArgument(_ body: () throws -> [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    let error = #expect(throws: CryptoFailure.self, sourceLocation: sourceLocation, performing: body)
    guard case .invalidArgument = error else {
        Issue.record("\(String(describing: error)) is not an invalid argument", sourceLocation: sourceLocation)
        return
    }
}

private func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

private func bytes(_ hex: String) -> [UInt8] {
    let characters = Array(hex)
    return stride(from: 0, to: characters.count, by: 2).map { UInt8(String(characters[$0...$0 + 1]), radix: 16)! }
}
