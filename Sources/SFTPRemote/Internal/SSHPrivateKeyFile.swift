import Foundation

/// What can be learnt from a private key file without its passphrase: its key type, so that an
/// authentication failure with an RSA key can be explained (libssh2 before 1.11 signs only with
/// SHA-1 `ssh-rsa`, which OpenSSH 8.8 and later refuse).
///
/// Reads the public part of OpenSSH-format keys (`openssh-key-v1`, unencrypted even when the key
/// has a passphrase), the PEM header of older formats, and a neighbouring `.pub` file.
struct SSHPrivateKeyFile {
    /// The key file's path.
    let path: String

    /// The key algorithm (`ssh-rsa`, `ssh-ed25519`, `ecdsa-sha2-nistp256`…), or `nil` if unknown.
    var keyType: String? {
        if let publicKey = try? String(contentsOfFile: path + ".pub", encoding: .utf8),
            let type = publicKey.split(separator: " ").first
        {
            return String(type)
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        if text.contains("BEGIN RSA PRIVATE KEY") { return "ssh-rsa" }
        if text.contains("BEGIN EC PRIVATE KEY") { return "ecdsa" }
        if text.contains("BEGIN DSA PRIVATE KEY") { return "ssh-dss" }
        guard text.contains("BEGIN OPENSSH PRIVATE KEY") else { return nil }
        let body = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let bytes = Data(base64Encoded: body) else { return nil }
        return Self.openSSHPublicKeyType(Array(bytes))
    }

    /// True if the file holds an RSA key.
    var isRSA: Bool { keyType == "ssh-rsa" }

    /// Parses `openssh-key-v1\0`, cipher, KDF, KDF options, key count, then the first public
    /// key blob, whose first string is the key type.
    private static func openSSHPublicKeyType(_ bytes: [UInt8]) -> String? {
        let magic = Array("openssh-key-v1\0".utf8)
        guard bytes.starts(with: magic) else { return nil }
        var offset = magic.count
        func readString() -> [UInt8]? {
            guard offset + 4 <= bytes.count else { return nil }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard length >= 0, offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }
        guard readString() != nil, readString() != nil, readString() != nil else { return nil }
        offset += 4
        guard let publicKey = readString(), publicKey.count >= 4 else { return nil }
        let typeLength = publicKey[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard 4 + typeLength <= publicKey.count else { return nil }
        return String(decoding: publicKey[4..<4 + typeLength], as: UTF8.self)
    }
}
