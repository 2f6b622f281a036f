import CLibSSH2
import Foundation
import RemoteProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Logs a user in on an SSH session that passed host-key verification, trying in turn: the
/// configured identity file (with its passphrase), the password, the keys of a running ssh-agent
/// (`ssh-agent` setting),
/// and, when neither an identity file nor a password is configured, the default keys
/// `~/.ssh/id_ed25519` and `~/.ssh/id_ecdsa`. Only methods the server offers are tried.
///
/// A refusal by the server throws ``RemoteProtocol/RemoteStoreError/Code/authenticationFailed``
/// naming what was tried (never a secret). An RSA identity refused by a libssh2 older than 1.11
/// gets an explanation: that libssh2 signs only with SHA-1 `ssh-rsa`, which OpenSSH 8.8 and later
/// refuse.
///
/// Only an answer of the server is a refusal: after every failed attempt, ``SSHConnectionCheck``
/// tells a connection that dropped, was reset or closed by the server (overloaded, `MaxStartups`,
/// restarting) or stayed silent — which libssh2 1.10 reports as a refused key too — from a real
/// refusal, and throws `unavailable` or `timedOut` (retryable) for those.
struct SSHAuthenticator {
    let configuration: SFTPRemoteStore.Configuration
    /// Judges failed calls: did the connection fail, or did the server answer?
    let check: SSHConnectionCheck

    /// Authenticates `configuration.user` on `session`.
    func authenticate(session: OpaquePointer) throws {
        let user = configuration.user
        let offered: Set<String>
        let started = ContinuousClock.now
        if let list = libssh2_userauth_list(session, user, UInt32(user.utf8.count)) {
            offered = Set(String(cString: list).split(separator: ",").map(String.init))
        } else if libssh2_userauth_authenticated(session) != 0 {
            return
        } else {
            try rethrowConnectionFailure(libssh2_session_last_errno(session), since: started)
            throw SSHSession.failure(of: session).remoteStoreError("the SSH server did not answer the authentication request", path: nil)
        }

        var attempts: [String] = []
        var notes: [String] = []
        if offered.contains("publickey") {
            for keyFile in keyFiles() {
                if try tryKeyFile(keyFile, session: session, attempts: &attempts, notes: &notes) { return }
            }
        }
        if let password = configuration.password, offered.contains("password") {
            let started = ContinuousClock.now
            let rc = libssh2_userauth_password_ex(
                session, user, UInt32(user.utf8.count), password, UInt32(password.utf8.count), nil
            )
            if rc == 0 { return }
            try rethrowConnectionFailure(rc, since: started)
            attempts.append("the password")
        }
        if configuration.usesAgent, offered.contains("publickey") {
            switch try tryAgent(session: session) {
            case true?: return
            case false?: attempts.append("the keys of ssh-agent")
            case nil: attempts.append("ssh-agent (none answers at \(agentSocket ?? "SSH_AUTH_SOCK, which is not set"))")
            }
        }
        let tried = attempts.isEmpty ? "no usable method was configured" : "tried " + attempts.joined(separator: ", ")
        let serverOffers = offered.sorted().joined(separator: ", ")
        throw RemoteStoreError(
            .authenticationFailed,
            message: "the SSH server \(configuration.knownHostsName) refused user '\(user)' (\(tried); the server accepts: "
                + "\(serverOffers))" + notes.map { ". " + $0 }.joined()
        )
    }

    /// The configured identity file, or the default keys when nothing else is configured.
    private func keyFiles() -> [String] {
        if let identityFile = configuration.identityFile { return [identityFile] }
        guard configuration.password == nil else { return [] }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return ["id_ed25519", "id_ecdsa"].map { "\(home)/.ssh/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Tries one private key file; true on success.
    private func tryKeyFile(_ path: String, session: OpaquePointer, attempts: inout [String], notes: inout [String]) throws -> Bool {
        guard FileManager.default.isReadableFile(atPath: path) else {
            attempts.append("the key file \(path) (missing or unreadable)")
            return false
        }
        let user = configuration.user
        let started = ContinuousClock.now
        let rc = libssh2_userauth_publickey_fromfile_ex(session, user, UInt32(user.utf8.count), nil, path, configuration.passphrase)
        if rc == 0 { return true }
        try rethrowConnectionFailure(rc, since: started)
        let keyFile = SSHPrivateKeyFile(path: path)
        if rc == LIBSSH2_ERROR_FILE {
            attempts.append("the key file \(path) (it cannot be read: unsupported format, or a wrong or missing passphrase)")
        } else {
            attempts.append("the key file \(path)")
        }
        if keyFile.isRSA && clibssh2_runtime_version_number() < 0x010B00 {
            notes.append(
                "\(path) is an RSA key: libssh2 \(String(cString: libssh2_version(0))) signs RSA keys only with SHA-1 "
                    + "(ssh-rsa), which OpenSSH 8.8 and later refuse; use an ed25519 or ECDSA key "
                    + "(ssh-keygen -t ed25519), or libssh2 1.11 or later"
            )
        }
        return false
    }

    /// The ssh-agent socket: the configured one, else `SSH_AUTH_SOCK`.
    private var agentSocket: String? {
        configuration.agentSocket ?? ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"]
    }

    /// Tries every identity of the ssh-agent at ``agentSocket``: true on success, false when none
    /// logs in, `nil` at once when no agent answers there.
    ///
    /// libssh2 (1.10 and 1.11) closes the socket of a connection to the agent that fails but keeps
    /// its number, and `libssh2_agent_free` then closes that number again: by then, perhaps,
    /// another thread's socket or file (a stale `SSH_AUTH_SOCK` did it on every connection). So
    /// the agent is handed to libssh2 only once a connection of our own to it succeeded, and an
    /// agent whose connection still fails is left unfreed (a few bytes).
    private func tryAgent(session: OpaquePointer) throws -> Bool? {
        guard let socket = agentSocket, Self.agentAnswers(at: socket) else { return nil }
        guard let agent = libssh2_agent_init(session) else { return false }
        libssh2_agent_set_identity_path(agent, socket)
        guard libssh2_agent_connect(agent) == 0 else { return nil }
        defer { libssh2_agent_free(agent) }
        defer { libssh2_agent_disconnect(agent) }
        guard libssh2_agent_list_identities(agent) == 0 else { return false }
        var previous: UnsafeMutablePointer<libssh2_agent_publickey>?
        var identity: UnsafeMutablePointer<libssh2_agent_publickey>?
        while libssh2_agent_get_identity(agent, &identity, previous) == 0 {
            let started = ContinuousClock.now
            let rc = libssh2_agent_userauth(agent, configuration.user, identity)
            if rc == 0 { return true }
            try rethrowConnectionFailure(rc, since: started)
            previous = identity
        }
        return false
    }

    /// True if a Unix socket at `path` accepts a connection (closed again at once).
    private static func agentAnswers(at path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    /// What a failed method returns when the server answered no, or the client could not use the
    /// method (an unreadable key, a wrong passphrase, an agent that refused to sign).
    private static let answerCodes: Set<Int32> = [
        LIBSSH2_ERROR_AUTHENTICATION_FAILED, LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED, LIBSSH2_ERROR_FILE,
        LIBSSH2_ERROR_KEYFILE_AUTH_FAILED, LIBSSH2_ERROR_METHOD_NOT_SUPPORTED, LIBSSH2_ERROR_METHOD_NONE,
        LIBSSH2_ERROR_PUBLICKEY_PROTOCOL, LIBSSH2_ERROR_AGENT_PROTOCOL, LIBSSH2_ERROR_PASSWORD_EXPIRED,
    ]

    /// Returns if the server answered the attempt that returned `rc` (a refusal: the session stays
    /// usable for another method); throws if the connection failed instead (dropped, reset, closed,
    /// timed out: `unavailable` or `timedOut`), or if the server ended the login on purpose
    /// (`authenticationFailed` with its reason).
    private func rethrowConnectionFailure(_ rc: Int32, since started: ContinuousClock.Instant) throws {
        switch check.verdict(rc: rc, elapsed: ContinuousClock.now - started, during: .authentication) {
        case .answered where Self.answerCodes.contains(rc):
            return
        case .answered:
            throw SSHSession.failure(of: check.session).remoteStoreError("the SSH login failed", path: nil)
        case .connectionFailed(let error):
            throw error
        case .refusedAndClosed(let explanation):
            throw RemoteStoreError(.authenticationFailed, message: "\(explanation) (user '\(configuration.user)')")
        }
    }
}
