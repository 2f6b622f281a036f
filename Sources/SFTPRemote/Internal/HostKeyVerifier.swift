import CLibSSH2
import Foundation
import RemoteProtocol

/// Checks an SSH server's host key before any credential is sent: against a pinned SHA-256
/// fingerprint if one is configured, otherwise against an OpenSSH `known_hosts` file.
///
/// - `known_hosts` entries may be plain (`host`, `[host]:port` for ports other than 22) or hashed
///   (`|1|salt|hash`, as `HashKnownHosts yes` writes them). Lines libssh2 cannot parse (certificate
///   authorities, `@revoked` markers, security-key types) are skipped, not fatal.
/// - An unknown host throws ``RemoteProtocol/RemoteStoreError/Code/hostKeyUnknown`` with the key's
///   fingerprint and how to trust it, unless trust-on-first-use is on: then the key is appended to
///   the `known_hosts` file (created if needed) and accepted.
/// - A key that differs from the recorded or pinned one always throws
///   ``RemoteProtocol/RemoteStoreError/Code/hostKeyMismatch``, whatever trust-on-first-use says.
struct HostKeyVerifier {
    /// The server's host key as the handshake presented it.
    struct PresentedKey {
        /// The raw key blob.
        var blob: [UInt8]
        /// The libssh2 key type (`LIBSSH2_HOSTKEY_TYPE_*`).
        var type: Int32
        /// `SHA256:…` as OpenSSH prints it.
        var fingerprint: String

        /// The OpenSSH algorithm name (`ssh-ed25519`, `ecdsa-sha2-nistp256`…).
        var algorithmName: String {
            switch type {
            case LIBSSH2_HOSTKEY_TYPE_RSA: return "ssh-rsa"
            case LIBSSH2_HOSTKEY_TYPE_DSS: return "ssh-dss"
            case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return "ecdsa-sha2-nistp256"
            case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return "ecdsa-sha2-nistp384"
            case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return "ecdsa-sha2-nistp521"
            case LIBSSH2_HOSTKEY_TYPE_ED25519: return "ssh-ed25519"
            default: return "unknown"
            }
        }

        /// The `LIBSSH2_KNOWNHOST_KEY_*` bits for this key type.
        var knownHostKeyMask: Int32 {
            switch type {
            case LIBSSH2_HOSTKEY_TYPE_RSA: return LIBSSH2_KNOWNHOST_KEY_SSHRSA
            case LIBSSH2_HOSTKEY_TYPE_DSS: return LIBSSH2_KNOWNHOST_KEY_SSHDSS
            case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return LIBSSH2_KNOWNHOST_KEY_ECDSA_256
            case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return LIBSSH2_KNOWNHOST_KEY_ECDSA_384
            case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return LIBSSH2_KNOWNHOST_KEY_ECDSA_521
            case LIBSSH2_HOSTKEY_TYPE_ED25519: return LIBSSH2_KNOWNHOST_KEY_ED25519
            default: return LIBSSH2_KNOWNHOST_KEY_UNKNOWN
            }
        }

        /// The line that records this key in a `known_hosts` file.
        func knownHostsLine(for name: String) -> String {
            "\(name) \(algorithmName) \(Data(blob).base64EncodedString())\n"
        }
    }

    let configuration: SFTPRemoteStore.Configuration

    /// Verifies the host key of the session that just completed its handshake.
    /// - Throws: ``RemoteProtocol/RemoteStoreError`` with code `hostKeyUnknown`, `hostKeyMismatch`,
    ///   `localFile` (the known_hosts file cannot be read or written) or `invalidResponse`.
    func verify(session: OpaquePointer) throws {
        let key = try Self.presentedKey(of: session)
        if let pinned = configuration.hostKeyFingerprint {
            guard key.fingerprint == pinned else {
                throw RemoteStoreError(
                    .hostKeyMismatch,
                    message: "the host key of \(configuration.knownHostsName) is \(key.algorithmName) \(key.fingerprint), "
                        + "not the pinned \(pinned): someone may be intercepting the connection, or the server's key "
                        + "changed. Update 'host-key-fingerprint' only after checking the new key on the server "
                        + "(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub)."
                )
            }
            return
        }
        switch try knownHostsCheck(key, session: session) {
        case LIBSSH2_KNOWNHOST_CHECK_MATCH:
            return
        case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
            throw RemoteStoreError(
                .hostKeyMismatch,
                message: "the host key of \(configuration.knownHostsName) (\(key.algorithmName) \(key.fingerprint)) differs "
                    + "from the one recorded in \(configuration.knownHostsFile): someone may be intercepting the connection, "
                    + "or the server's key changed. If the change is expected, remove the old entry with "
                    + "`ssh-keygen -R '\(configuration.knownHostsName)' -f \(configuration.knownHostsFile)` and trust the new key."
            )
        case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND where configuration.trustOnFirstUse:
            try record(key)
        case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
            throw RemoteStoreError(
                .hostKeyUnknown,
                message: "the host key of \(configuration.knownHostsName) is not known: \(key.algorithmName) \(key.fingerprint). "
                    + "Check this fingerprint on the server (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then trust it "
                    + "by setting 'host-key-fingerprint' to \(key.fingerprint), by adding the host to "
                    + "\(configuration.knownHostsFile) (ssh-keyscan -p \(configuration.port) \(configuration.host) >> \(configuration.knownHostsFile)), "
                    + "or by connecting once with 'trust-on-first-use' set to true."
            )
        default:
            throw RemoteStoreError(
                .invalidResponse,
                message: "cannot check the host key of \(configuration.knownHostsName) against \(configuration.knownHostsFile)"
            )
        }
    }

    /// The key the server presented, with its SHA-256 fingerprint.
    static func presentedKey(of session: OpaquePointer) throws -> PresentedKey {
        var length = 0
        var type: Int32 = 0
        guard let raw = libssh2_session_hostkey(session, &length, &type), length > 0,
            let hash = libssh2_hostkey_hash(session, LIBSSH2_HOSTKEY_HASH_SHA256)
        else {
            throw RemoteStoreError(.invalidResponse, message: "the SSH server presented no host key")
        }
        let blob = raw.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        let digest = hash.withMemoryRebound(to: UInt8.self, capacity: 32) { Data(UnsafeBufferPointer(start: $0, count: 32)) }
        var encoded = digest.base64EncodedString()
        while encoded.hasSuffix("=") { encoded.removeLast() }
        return PresentedKey(blob: blob, type: type, fingerprint: "SHA256:" + encoded)
    }

    /// Loads the known_hosts file line by line (skipping lines libssh2 cannot parse) and checks the key.
    private func knownHostsCheck(_ key: PresentedKey, session: OpaquePointer) throws -> Int32 {
        guard let hosts = libssh2_knownhost_init(session) else {
            throw RemoteStoreError(.unknown, message: "libssh2 cannot allocate a known-hosts list")
        }
        defer { libssh2_knownhost_free(hosts) }
        for line in try knownHostsLines() {
            _ = line.withCString { libssh2_knownhost_readline(hosts, $0, strlen($0), LIBSSH2_KNOWNHOST_FILE_OPENSSH) }
        }
        let typeMask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | key.knownHostKeyMask
        return key.blob.withUnsafeBufferPointer { blob in
            blob.withMemoryRebound(to: CChar.self) { chars in
                libssh2_knownhost_checkp(hosts, configuration.host, Int32(configuration.port), chars.baseAddress, blob.count, typeMask, nil)
            }
        }
    }

    /// The file's lines; none if the file does not exist yet.
    private func knownHostsLines() throws -> [String] {
        let path = configuration.knownHostsFile
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.split(whereSeparator: \.isNewline).map { String($0) + "\n" }
        } catch {
            throw RemoteStoreError(.localFile, message: "cannot read the known_hosts file \(path)", underlying: error)
        }
    }

    /// Appends the key to the known_hosts file, creating the file (mode 0600) and its folder if needed.
    private func record(_ key: PresentedKey) throws {
        let url = URL(fileURLWithPath: configuration.knownHostsFile)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: url.path) {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            let handle = try FileHandle(forUpdating: url)
            defer { try? handle.close() }
            var line = key.knownHostsLine(for: configuration.knownHostsName)
            let end = try handle.seekToEnd()
            if end > 0 {
                try handle.seek(toOffset: end - 1)
                if try handle.read(upToCount: 1) != Data("\n".utf8) { line = "\n" + line }
            }
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            throw RemoteStoreError(.localFile, message: "cannot record the host key in \(url.path)", underlying: error)
        }
    }
}
