import CryptoPrimitives
import Foundation

/// The content of a key file in `<appID>/Encryption/`: the application's data key, encrypted with
/// a key derived from the password, and everything needed to derive that key again.
///
/// It is plain JSON, readable without the password (nothing in it is secret):
/// ```json
/// { "format": "RollingSync wrapped data key", "version": 1, "keyID": "<32 hex digits>",
///   "generation": 1, "scrypt": { "log2N": 17, "r": 8, "p": 1 }, "salt": "<base64, 32 bytes>",
///   "sealedKey": "<base64: nonce (12) ‖ encrypted key (32) ‖ tag (16)>" }
/// ```
/// The data key is sealed with AES-256-GCM under the scrypt-derived key; the associated data binds
/// it to the format, the application and the key identifier. A wrong password fails the GCM tag
/// check (constant-time), which is the password check: no separate verifier is stored.
struct WrappedDataKey: Codable, Sendable {
    /// The value of ``format``.
    static let formatName = "RollingSync wrapped data key"
    /// The version this build writes and reads.
    static let currentVersion = 1
    /// The number of bytes of the salt.
    static let saltByteCount = 32

    var format: String
    var version: Int
    /// The identifier of the wrapped data key, as 32 hexadecimal digits.
    var keyID: String
    /// Starts at 1 and grows by one with every password change.
    var generation: Int
    /// The key-derivation cost.
    var scrypt: ScryptParameters
    /// The salt of the key derivation.
    var salt: Data
    /// The sealed data key.
    var sealedKey: Data

    /// Wraps `dataKey` with `password` for `applicationID`, with a fresh salt.
    static func wrap(
        _ dataKey: DataKey,
        password: EncryptionPassword,
        parameters: ScryptParameters,
        generation: Int,
        applicationID: SyncIdentifier
    ) async throws -> WrappedDataKey {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let wrappingKey = try await parameters.deriveKey(from: password, salt: salt)
        let sealed = try AES256GCM.sealCombined(
            dataKey.bytes,
            key: wrappingKey,
            authenticating: associatedData(applicationID: applicationID, keyID: dataKey.id)
        )
        return WrappedDataKey(
            format: formatName,
            version: currentVersion,
            keyID: dataKey.id.hex,
            generation: generation,
            scrypt: parameters,
            salt: Data(salt),
            sealedKey: Data(sealed)
        )
    }

    /// The data key, if `password` is the right one; `nil` if it is not (or the file was altered,
    /// which cannot be told apart).
    /// - Throws: ``CryptoFailure`` if libcrypto fails otherwise (the key derivation's memory).
    func unwrap(password: EncryptionPassword, applicationID: SyncIdentifier) async throws -> DataKey? {
        guard let id = DataKeyID(hex: keyID) else {
            return nil
        }
        let wrappingKey = try await scrypt.deriveKey(from: password, salt: Array(salt))
        do {
            let bytes = try AES256GCM.openCombined(
                sealedKey, key: wrappingKey, authenticating: Self.associatedData(applicationID: applicationID, keyID: id)
            )
            return DataKey(id: id, bytes: bytes)
        } catch CryptoFailure.authenticationFailed {
            return nil
        }
    }

    /// The associated data of the sealed key.
    private static func associatedData(applicationID: SyncIdentifier, keyID: DataKeyID) -> [UInt8] {
        Array("\(formatName) v\(currentVersion)\n\(applicationID.rawValue)\n\(keyID.hex)".utf8)
    }
}
