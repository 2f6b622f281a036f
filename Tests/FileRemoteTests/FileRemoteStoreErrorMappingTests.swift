import Foundation
import RemoteProtocol
import RemoteTransportSupport
import TestSupport
import Testing

@testable import FileRemote

#if canImport(Glibc)
import Glibc
#endif

/// Real file-system failures come out as the shared error codes, and failed writes leave nothing
/// behind. Permission and disk-full failures are provoked for real with mounts and the immutable
/// attribute, because the tests run as root, whom permission bits do not stop.
struct FileRemoteStoreErrorMappingTests {
    @Test(arguments: [
        (ENOENT, RemoteStoreError.Code.notFound), (EEXIST, .alreadyExists), (ENOTDIR, .notADirectory),
        (EISDIR, .isADirectory), (EACCES, .permissionDenied), (EPERM, .permissionDenied),
        (EROFS, .permissionDenied), (ENOSPC, .insufficientStorage), (EDQUOT, .insufficientStorage),
        (EIO, .io), (ELOOP, .io),
    ])
    func errnoMapsToSharedCodeKeepingItAsUnderlying(_ code: Int32, _ expected: RemoteStoreError.Code) {
        let error = FailureContext.remote("a/b").error(SystemCallError(code: code), "write")

        #expect(error.code == expected)
        #expect(error.path == "a/b")
        #expect((error.underlying as? POSIXError)?.code.rawValue == code)
    }

    @Test func localFileFailuresAreLocalFileWhateverTheErrno() {
        let error = FailureContext.local(URL(filePath: "/data/in.bin")).error(SystemCallError(code: ENOSPC), "write")

        #expect(error.code == .localFile)
        #expect(error.message.contains("/data/in.bin"))
    }

    @Test func fileWhereADirectoryIsNeededIsMapped() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("x", to: "file")
        let store = try FileRemoteStore(root: folder.url)

        await expectRemoteError(.notADirectory) { try await store.write(Data(), to: "file/child") }
        await expectRemoteError(.notADirectory) { try await store.createDirectory(at: "file/child") }
        await expectRemoteError(.alreadyExists) { try await store.createDirectory(at: "file") }
        await expectRemoteError(.notADirectory) { _ = try await store.list("file") }
        #expect(try folder.names() == ["file"])
    }

    @Test(.enabled(if: PrivilegedFileSystem.canMount, "mounting needs CAP_SYS_ADMIN, which this sandbox lacks"))
    func readOnlyFileSystemIsPermissionDenied() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("original", to: "source/file")
        let readOnly = folder.appending("root/readonly")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        let store = try FileRemoteStore(root: folder.appending("root"))

        let source = folder.appending("source")
        try await PrivilegedFileSystem.withReadOnlyBind(of: source, at: readOnly) { () async throws in
            await expectRemoteError(.permissionDenied) { try await store.write(Data("new".utf8), to: "readonly/file") }
            await expectRemoteError(.permissionDenied) { try await store.write(Data("new".utf8), to: "readonly/other") }
            await expectRemoteError(.permissionDenied) { try await store.createDirectory(at: "readonly/sub") }
            await expectRemoteError(.permissionDenied) { try await store.delete("readonly/file") }
            #expect(try await store.read("readonly/file") == Data("original".utf8))
        }
        #expect(try folder.names(in: "source") == ["file"])
    }

    @Test(.enabled(if: PrivilegedFileSystem.canMakeImmutable, "chattr +i is not supported here"))
    func immutableDirectoryIsPermissionDenied() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try folder.write("original", to: "locked/file")
        let store = try FileRemoteStore(root: folder.url)

        try await PrivilegedFileSystem.withImmutable(folder.appending("locked")) { () async throws in
            await expectRemoteError(.permissionDenied) { try await store.write(Data("new".utf8), to: "locked/file") }
            await expectRemoteError(.permissionDenied) { try await store.copy("locked/file", to: "locked/copy") }
            await expectRemoteError(.permissionDenied) { try await store.delete("locked/file") }
        }
        #expect(try folder.names(in: "locked") == ["file"])
        #expect(try folder.read("locked/file") == "original")
    }

    @Test(.enabled(if: PrivilegedFileSystem.canMount, "mounting needs CAP_SYS_ADMIN, which this sandbox lacks"))
    func fullDiskIsInsufficientStorageAndLeavesNoTemporaryFile() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.appending("root/small"), withIntermediateDirectories: true)
        let big = folder.appending("big.bin")
        try Data(repeating: 0xA5, count: 1 << 20).write(to: big)
        let store = try FileRemoteStore(root: folder.appending("root"))

        let small = folder.appending("root/small")
        try await PrivilegedFileSystem.withSmallTmpfs(at: small, size: "64k") { () async throws in
            try await store.write(Data("previous".utf8), to: "small/data")

            await expectRemoteError(.insufficientStorage) { try await store.upload(contentsOf: big, to: "small/data") }
            try await store.write(Data(repeating: 1, count: 40 << 10), to: "small/forty")
            await expectRemoteError(.insufficientStorage) { try await store.copy("small/forty", to: "small/copy") }

            #expect(try folder.names(in: "root/small") == ["data", "forty"])
            #expect(try await store.read("small/data") == Data("previous".utf8))
        }
    }
}
