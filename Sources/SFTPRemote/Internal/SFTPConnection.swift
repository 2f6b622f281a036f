import CLibSSH2
import Foundation
import RemoteProtocol
import RemoteTransportSupport
import Synchronization

/// One SSH connection with SFTP, owned by an actor whose executor is a dedicated OS thread: every
/// blocking libssh2 call runs there, never on Swift's cooperative pool, and never two at a time on
/// the same session (libssh2 sessions are not thread-safe).
///
/// The primitives in this file are thin, blocking wrappers around libssh2 that throw
/// ``SFTPFailure``; the store's operations built on them live in `SFTPConnection+Operations.swift`
/// and `SFTPConnection+Transfers.swift`. A failure of the connection itself (socket error,
/// timeout) marks it broken (``isBroken``); the pool then discards it and the store retries the
/// call on a fresh connection.
actor SFTPConnection {
    /// Bytes moved per libssh2 read or write call: 64 of libssh2's 30,000-byte SFTP packets, so
    /// that libssh2 (which pipelines within one call) keeps about OpenSSH's 2 MiB channel window
    /// of writes in flight, and reads ahead four times as much.
    static let transferBufferSize = 30_000 * 64

    private let executor: DedicatedThreadExecutor
    let configuration: SFTPRemoteStore.Configuration
    private var ssh: SSHSession?
    private var lastUse = ContinuousClock.now
    private let broken = Atomic<Bool>(false)
    private let retired = Atomic<Bool>(false)

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// True once the SSH connection failed: the connection must not be used again, and other
    /// connections to the same server are suspect too (the server may have restarted).
    nonisolated var isBroken: Bool { broken.load(ordering: .relaxed) }

    /// True if the connection works but must not be reused (see ``retire()``), or is broken.
    nonisolated var isRetired: Bool { retired.load(ordering: .relaxed) || isBroken }

    /// Marks a working connection as not reusable: after an interrupted transfer, libssh2 may
    /// still expect answers to requests that were in flight, so the pool closes the connection
    /// rather than risk confusing a later call.
    func retire() {
        retired.store(true, ordering: .relaxed)
    }

    /// Creates an unconnected connection with its own thread; ``connect()`` opens it.
    init(configuration: SFTPRemoteStore.Configuration, name: String) {
        self.configuration = configuration
        self.executor = DedicatedThreadExecutor(name: name)
    }

    deinit {
        executor.shutdown()
    }

    /// Connects, verifies the host key, authenticates, and opens SFTP.
    func connect() throws {
        ssh = try SSHSession(configuration: configuration)
        lastUse = .now
    }

    /// Disconnects. The connection cannot be used afterwards.
    func close() {
        ssh = nil
        broken.store(true, ordering: .relaxed)
    }

    /// Sends a keepalive if the connection has been idle longer than the keepalive interval, so
    /// middleboxes keep it open and a connection the server dropped is noticed early.
    func refreshIfIdle() {
        guard let ssh, ContinuousClock.now - lastUse > configuration.keepaliveInterval else { return }
        do {
            try ssh.sendKeepalive()
            lastUse = .now
        } catch {
            broken.store(true, ordering: .relaxed)
        }
    }

    // MARK: - Paths

    /// The absolute server path of `path`.
    func serverPath(_ path: RemotePath) throws -> String {
        let root = try session().rootPath
        if path.isRoot { return root }
        return (root == "/" ? "" : root) + "/" + path.string
    }

    /// The open session, or an error if the connection was closed or broke.
    func session() throws -> SSHSession {
        guard let ssh, !isBroken else {
            throw RemoteStoreError(.unavailable, message: "the SFTP connection to \(configuration.knownHostsName) is closed")
        }
        lastUse = .now
        return ssh
    }

    // MARK: - Primitives

    /// The last failure of the session; a connection failure marks this connection broken.
    func lastFailure() -> SFTPFailure {
        guard let ssh else {
            return SFTPFailure(code: LIBSSH2_ERROR_SOCKET_DISCONNECT, sftpStatus: nil, message: "the connection is closed")
        }
        let failure = ssh.lastFailure()
        if failure.breaksConnection { broken.store(true, ordering: .relaxed) }
        return failure
    }

    /// The attributes of `path` without following a final symbolic link; `nil` if nothing is there
    /// (including below a file, which OpenSSH reports as "no such file").
    func lstat(_ path: String) throws -> LIBSSH2_SFTP_ATTRIBUTES? {
        var attributes = LIBSSH2_SFTP_ATTRIBUTES()
        RemoteRequestCounter.record()
        let rc = libssh2_sftp_stat_ex(try session().sftp, path, UInt32(path.utf8.count), LIBSSH2_SFTP_LSTAT, &attributes)
        if rc == 0 { return attributes }
        let failure = lastFailure()
        if failure.status == .noSuchFile { return nil }
        throw failure
    }

    /// Creates one directory (mode 0755 before the server's umask).
    func mkdir(_ path: String) throws {
        RemoteRequestCounter.record()
        let rc = libssh2_sftp_mkdir_ex(try session().sftp, path, UInt32(path.utf8.count), 0o755)
        if rc != 0 { throw lastFailure() }
    }

    /// Removes an empty directory.
    func rmdir(_ path: String) throws {
        RemoteRequestCounter.record()
        let rc = libssh2_sftp_rmdir_ex(try session().sftp, path, UInt32(path.utf8.count))
        if rc != 0 { throw lastFailure() }
    }

    /// Removes a file or symbolic link.
    func unlink(_ path: String) throws {
        RemoteRequestCounter.record()
        let rc = libssh2_sftp_unlink_ex(try session().sftp, path, UInt32(path.utf8.count))
        if rc != 0 { throw lastFailure() }
    }

    /// Renames `source` to `destination`, which must not exist (SFTP v3 cannot overwrite).
    func rename(_ source: String, to destination: String) throws {
        RemoteRequestCounter.record()
        let rc = libssh2_sftp_rename_ex(
            try session().sftp, source, UInt32(source.utf8.count), destination, UInt32(destination.utf8.count), 0
        )
        if rc != 0 { throw lastFailure() }
    }

    /// Opens a file (`LIBSSH2_FXF_*` flags) or, with `LIBSSH2_SFTP_OPENDIR`, a directory.
    ///
    /// Each SFTP request these wrappers send is reported to ``RemoteProtocol/RemoteRequestCounter``
    /// (the data packets of one transfer or listing count as one: libssh2 pipelines them).
    func open(_ path: String, flags: Int32, mode: Int, type: Int32 = LIBSSH2_SFTP_OPENFILE) throws -> OpaquePointer {
        RemoteRequestCounter.record()
        guard let handle = libssh2_sftp_open_ex(try session().sftp, path, UInt32(path.utf8.count), UInt(flags), mode, type) else {
            throw lastFailure()
        }
        return handle
    }

    /// Closes a handle; for files written to, this is where the server reports a late write error.
    func closeHandle(_ handle: OpaquePointer) throws {
        RemoteRequestCounter.record()
        if libssh2_sftp_close_handle(handle) != 0 { throw lastFailure() }
    }

    /// The entries of the directory at `path`, except `.` and `..`, with lstat-style attributes.
    func readDirectory(_ path: String) throws -> [(name: String, attributes: LIBSSH2_SFTP_ATTRIBUTES)] {
        let handle = try open(path, flags: 0, mode: 0, type: LIBSSH2_SFTP_OPENDIR)
        var entries: [(name: String, attributes: LIBSSH2_SFTP_ATTRIBUTES)] = []
        var name = [CChar](repeating: 0, count: 4096)
        var longEntry = [CChar](repeating: 0, count: 4096)
        // The READDIR exchanges of one listing count as one request (each answers many entries).
        RemoteRequestCounter.record()
        while true {
            var attributes = LIBSSH2_SFTP_ATTRIBUTES()
            let length = libssh2_sftp_readdir_ex(handle, &name, name.count, &longEntry, longEntry.count, &attributes)
            if length == 0 { break }
            if length < 0 {
                let failure = lastFailure()
                _ = libssh2_sftp_close_handle(handle)
                throw failure
            }
            let text = String(decoding: name.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text != "." && text != ".." {
                entries.append((text, attributes))
            }
        }
        try closeHandle(handle)
        return entries
    }
}
