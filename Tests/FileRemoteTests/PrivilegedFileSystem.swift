import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The privileged file-system tricks the error-mapping tests need to provoke real `EROFS`,
/// `EPERM` and `ENOSPC` failures as root (who bypasses permission bits): mounts and the
/// immutable attribute. Each is probed once; tests that need one are disabled, with the reason,
/// where the sandbox forbids it.
enum PrivilegedFileSystem {
    /// True if this process may mount file systems (root with `CAP_SYS_ADMIN`, as in a privileged
    /// container or a VM).
    static let canMount: Bool = {
        guard let folder = try? TemporaryDirectory() else { return false }
        defer { folder.remove() }
        let target = folder.url.path(percentEncoded: false)
        guard mount("tmpfs", target, "tmpfs", 0, "size=16k") == 0 else { return false }
        return umount2(target, Int32(MNT_DETACH)) == 0
    }()

    /// True if `chattr +i` works on the temporary directory's file system.
    static let canMakeImmutable: Bool = {
        guard let folder = try? TemporaryDirectory() else { return false }
        defer { folder.remove() }
        let path = folder.url.path(percentEncoded: false)
        guard (try? setImmutable(true, path)) != nil else { return false }
        return (try? setImmutable(false, path)) != nil
    }()

    /// Mounts a tmpfs of `size` (such as `"64k"`) at `folder`, runs `body`, then unmounts it.
    static func withSmallTmpfs<Result>(
        at folder: URL,
        size: String,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let target = folder.path(percentEncoded: false)
        try check(mount("tmpfs", target, "tmpfs", 0, "size=\(size)"), "mount a tmpfs at \(target)")
        defer { umount2(target, Int32(MNT_DETACH)) }
        return try await body()
    }

    /// Mounts `source` read-only at `folder` (a bind mount), runs `body`, then unmounts it.
    static func withReadOnlyBind<Result>(
        of source: URL,
        at folder: URL,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let target = folder.path(percentEncoded: false)
        try check(
            mount(source.path(percentEncoded: false), target, nil, UInt(MS_BIND), nil),
            "bind-mount \(source.path(percentEncoded: false)) at \(target)"
        )
        defer { umount2(target, Int32(MNT_DETACH)) }
        try check(
            mount(nil, target, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil),
            "remount \(target) read-only"
        )
        return try await body()
    }

    /// Sets the immutable attribute on `folder` (no entry can be added or removed, even by root),
    /// runs `body`, then clears it.
    static func withImmutable<Result>(_ folder: URL, _ body: () async throws -> Result) async throws -> Result {
        let path = folder.path(percentEncoded: false)
        try setImmutable(true, path)
        defer { try? setImmutable(false, path) }
        return try await body()
    }

    /// A failed setup step.
    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    private static func check(_ result: Int32, _ action: String) throws {
        guard result == 0 else {
            throw SetupError(description: "cannot \(action): \(String(cString: strerror(errno)))")
        }
    }

    /// Sets or clears the immutable attribute of `path` as `chattr ±i` does (`FS_IOC_GETFLAGS`,
    /// then `FS_IOC_SETFLAGS` with `FS_IMMUTABLE_FL`), without starting a process.
    private static func setImmutable(_ immutable: Bool, _ path: String) throws {
        let getFlags: UInt = 0x8008_6601, setFlags: UInt = 0x4008_6602, immutableFlag: Int32 = 0x10
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try check(descriptor >= 0 ? 0 : -1, "open \(path)")
        defer { close(descriptor) }
        var flags: Int32 = 0
        try check(ioctl(descriptor, getFlags, &flags), "read the attributes of \(path)")
        flags = immutable ? flags | immutableFlag : flags & ~immutableFlag
        try check(ioctl(descriptor, setFlags, &flags), "\(immutable ? "set" : "clear") the immutable attribute of \(path)")
    }
}
