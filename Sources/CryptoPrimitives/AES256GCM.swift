import COpenSSL
import Foundation

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) with 96-bit nonces and 128-bit tags.
package enum AES256GCM {
    /// The number of bytes of a key.
    package static let keyByteCount = 32
    /// The number of bytes of a nonce.
    package static let nonceByteCount = 12
    /// The number of bytes of a tag.
    package static let tagByteCount = 16

    /// The cipher, fetched once: initialising a context with OpenSSL 3's legacy `EVP_aes_256_gcm()`
    /// would fetch it again at every chunk. libcrypto's fetched algorithms are immutable and
    /// shared between threads.
    private nonisolated(unsafe) static let cipher: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)

    /// Encrypts `plaintext` under `key` and `nonce`, authenticating it and `associatedData`.
    /// A nonce must never be used twice with the same key.
    /// - Throws: ``CryptoFailure/invalidArgument(_:)`` for a key or nonce of the wrong size or a
    ///   plaintext of 2 GiB or more.
    package static func seal(
        _ plaintext: some ContiguousBytes,
        key: some ContiguousBytes,
        nonce: some ContiguousBytes,
        authenticating associatedData: some ContiguousBytes
    ) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        try withCipher(key: key, nonce: nonce, encrypting: true) { context in
            try add(associatedData, to: context, encrypting: true)
            let ciphertext = try transform(plaintext, context, encrypting: true)
            var final: Int32 = 0
            var unused: UInt8 = 0
            try check(EVP_EncryptFinal_ex(context, &unused, &final) == 1 && final == 0, "EVP_EncryptFinal_ex")
            var tag = [UInt8](repeating: 0, count: tagByteCount)
            try check(EVP_CIPHER_CTX_ctrl(context, copenssl_gcm_get_tag(), Int32(tagByteCount), &tag) == 1, "EVP_CTRL_GCM_GET_TAG")
            return (ciphertext, tag)
        }
    }

    /// Decrypts `ciphertext` under `key` and `nonce` once `tag` authenticates it and
    /// `associatedData`; no plaintext is returned otherwise.
    /// - Throws: ``CryptoFailure/authenticationFailed`` if the tag does not match;
    ///   ``CryptoFailure/invalidArgument(_:)`` for a key, nonce or tag of the wrong size.
    package static func open(
        _ ciphertext: some ContiguousBytes,
        tag: some ContiguousBytes,
        key: some ContiguousBytes,
        nonce: some ContiguousBytes,
        authenticating associatedData: some ContiguousBytes
    ) throws -> [UInt8] {
        var expectedTag = tag.withUnsafeBytes { Array($0) }
        guard expectedTag.count == tagByteCount else {
            throw CryptoFailure.invalidArgument("a tag of \(expectedTag.count) bytes (AES-GCM's are \(tagByteCount))")
        }
        return try withCipher(key: key, nonce: nonce, encrypting: false) { context in
            try add(associatedData, to: context, encrypting: false)
            let plaintext = try transform(ciphertext, context, encrypting: false)
            try check(EVP_CIPHER_CTX_ctrl(context, copenssl_gcm_set_tag(), Int32(tagByteCount), &expectedTag) == 1, "EVP_CTRL_GCM_SET_TAG")
            var final: Int32 = 0
            var unused: UInt8 = 0
            guard EVP_DecryptFinal_ex(context, &unused, &final) == 1 else {
                ERR_clear_error()
                throw CryptoFailure.authenticationFailed
            }
            return plaintext
        }
    }

    /// Seals with a fresh random nonce and returns nonce ‖ ciphertext ‖ tag in one buffer (the
    /// layout of swift-crypto's `AES.GCM.SealedBox.combined`, which wrapped keys have used since
    /// their first release).
    package static func sealCombined(
        _ plaintext: some ContiguousBytes,
        key: some ContiguousBytes,
        authenticating associatedData: some ContiguousBytes
    ) throws -> [UInt8] {
        let nonce = secureRandomBytes(nonceByteCount)
        let sealed = try seal(plaintext, key: key, nonce: nonce, authenticating: associatedData)
        return nonce + sealed.ciphertext + sealed.tag
    }

    /// Opens what ``sealCombined(_:key:authenticating:)`` returned.
    /// - Throws: ``CryptoFailure/authenticationFailed`` if it does not authenticate, including when
    ///   it is too short to hold a nonce and a tag.
    package static func openCombined(
        _ combined: some ContiguousBytes,
        key: some ContiguousBytes,
        authenticating associatedData: some ContiguousBytes
    ) throws -> [UInt8] {
        let bytes = combined.withUnsafeBytes { Array($0) }
        guard bytes.count >= nonceByteCount + tagByteCount else {
            throw CryptoFailure.authenticationFailed
        }
        return try open(
            bytes[nonceByteCount..<(bytes.count - tagByteCount)],
            tag: bytes[(bytes.count - tagByteCount)...],
            key: key,
            nonce: bytes[..<nonceByteCount],
            authenticating: associatedData
        )
    }

    /// Runs `body` with a cipher context set up for AES-256-GCM with `key` and `nonce`, and frees it.
    private static func withCipher<Result>(
        key: some ContiguousBytes,
        nonce: some ContiguousBytes,
        encrypting: Bool,
        _ body: (OpaquePointer) throws -> Result
    ) throws -> Result {
        let keyBytes = key.withUnsafeBytes { Array($0) }
        let nonceBytes = nonce.withUnsafeBytes { Array($0) }
        guard keyBytes.count == keyByteCount else {
            throw CryptoFailure.invalidArgument("a key of \(keyBytes.count) bytes (AES-256's are \(keyByteCount))")
        }
        guard nonceBytes.count == nonceByteCount else {
            throw CryptoFailure.invalidArgument("a nonce of \(nonceBytes.count) bytes (\(nonceByteCount) expected)")
        }
        guard let cipher else {
            throw CryptoFailure.libraryFailure(call: "EVP_CIPHER_fetch(AES-256-GCM)", reason: takeLibraryError())
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw CryptoFailure.libraryFailure(call: "EVP_CIPHER_CTX_new", reason: takeLibraryError())
        }
        defer { EVP_CIPHER_CTX_free(context) }
        let initialize = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        try check(initialize(context, cipher, nil, nil, nil) == 1, "EVP_CipherInit_ex")
        try check(EVP_CIPHER_CTX_ctrl(context, copenssl_gcm_set_iv_length(), Int32(nonceByteCount), nil) == 1, "EVP_CTRL_GCM_SET_IVLEN")
        try check(initialize(context, nil, nil, keyBytes, nonceBytes) == 1, "EVP_CipherInit_ex")
        return try body(context)
    }

    /// Feeds `associatedData` to the cipher (no output).
    private static func add(_ associatedData: some ContiguousBytes, to context: OpaquePointer, encrypting: Bool) throws {
        try withBytes(associatedData) { pointer, count in
            guard count > 0 else { return }
            var written: Int32 = 0
            let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
            try check(update(context, nil, &written, pointer, try length(count)) == 1, "EVP_CipherUpdate (associated data)")
        }
    }

    /// Encrypts or decrypts `input` (GCM is a stream mode: the output has the input's length).
    private static func transform(_ input: some ContiguousBytes, _ context: OpaquePointer, encrypting: Bool) throws -> [UInt8] {
        try withBytes(input) { pointer, count in
            guard count > 0 else { return [] }
            var output = [UInt8](repeating: 0, count: count)
            var written: Int32 = 0
            let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
            try check(update(context, &output, &written, pointer, try length(count)) == 1 && Int(written) == count, "EVP_CipherUpdate")
            return output
        }
    }

    /// `count` as libcrypto's `int` length.
    private static func length(_ count: Int) throws -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw CryptoFailure.invalidArgument("\(count) bytes in one call (2 GiB at most)")
        }
        return length
    }
}
