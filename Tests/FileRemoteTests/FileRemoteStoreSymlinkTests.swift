import Foundation
import RemoteProtocol
import TestSupport
import Testing

import FileRemote

/// Symbolic links: followed inside the root, refused when they lead out of it.
struct FileRemoteStoreSymlinkTests {
    /// A root folder `root` next to a folder `outside` holding `secret.txt`.
    private struct Layout {
        let folder: TemporaryDirectory
        let store: FileRemoteStore

        init() throws {
            folder = try TemporaryDirectory()
            try folder.write("secret", to: "outside/secret.txt")
            try FileManager.default.createDirectory(at: folder.appending("root"), withIntermediateDirectories: false)
            store = try FileRemoteStore(root: folder.appending("root"))
        }

        func link(_ name: String, to destination: String) throws {
            try FileManager.default.createSymbolicLink(
                atPath: folder.appending("root/\(name)").path(percentEncoded: false),
                withDestinationPath: destination
            )
        }
    }

    @Test(arguments: [true, false])
    func fileLinkLeadingOutsideTheRootIsRefused(absolute: Bool) async throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let store = layout.store
        let secret = layout.folder.appending("outside/secret.txt").path(percentEncoded: false)
        try layout.link("leak", to: absolute ? secret : "../outside/secret.txt")

        await expectRemoteError(.permissionDenied) { _ = try await store.read("leak") }
        await expectRemoteError(.permissionDenied) { _ = try await store.exists("leak") }
        await expectRemoteError(.permissionDenied) { try await store.copy("leak", to: "copy") }
        await expectRemoteError(.permissionDenied) { try await store.write(Data("overwritten".utf8), to: "leak") }
        #expect(try await store.list(.root).isEmpty)
        try await store.delete("leak")

        #expect(try layout.folder.read("outside/secret.txt") == "secret")
        #expect(try layout.folder.names(in: "root").isEmpty)
    }

    @Test(arguments: [true, false])
    func directoryLinkLeadingOutsideTheRootIsRefused(absolute: Bool) async throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let store = layout.store
        let outside = layout.folder.appending("outside").path(percentEncoded: false)
        try layout.link("escape", to: absolute ? outside : "../outside")

        await expectRemoteError(.permissionDenied) { _ = try await store.list("escape") }
        await expectRemoteError(.permissionDenied) { _ = try await store.exists("escape/secret.txt") }
        await expectRemoteError(.permissionDenied) { _ = try await store.read("escape/secret.txt") }
        await expectRemoteError(.permissionDenied) { try await store.write(Data("planted".utf8), to: "escape/new.txt") }
        await expectRemoteError(.permissionDenied) { try await store.createDirectory(at: "escape/sub") }
        await expectRemoteError(.permissionDenied) { try await store.delete("escape/secret.txt") }
        try await store.delete("escape")

        #expect(try layout.folder.names(in: "outside") == ["secret.txt"])
        #expect(try layout.folder.read("outside/secret.txt") == "secret")
        #expect(try layout.folder.names(in: "root").isEmpty)
    }

    @Test func linksThatStayInsideTheRootAreFollowed() async throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let store = layout.store
        try layout.folder.write("inside", to: "root/real/data.txt")
        try layout.link("directoryLink", to: "real")
        try layout.link("fileLink", to: layout.folder.appending("root/real/data.txt").path(percentEncoded: false))

        let listed = try await store.list(.root).sorted { $0.path < $1.path }
        try await store.write(Data("through the link".utf8), to: "directoryLink/new.txt")

        #expect(listed.map(\.name) == ["directoryLink", "fileLink", "real"])
        #expect(listed.map(\.kind) == [.directory, .file, .directory])
        #expect(listed[1].size == 6)
        #expect(try await store.read("fileLink") == Data("inside".utf8))
        #expect(try await store.exists("directoryLink/data.txt")?.kind == .file)
        #expect(try layout.folder.read("root/real/new.txt") == "through the link")
    }

    @Test func deletingALinkRemovesTheLinkAndNeverItsTarget() async throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let store = layout.store
        try layout.folder.write("kept", to: "root/real/data.txt")
        let tree = layout.folder.appending("root/tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: false)
        try layout.link("tree/inner", to: "../real")
        try layout.link("tree/outer", to: layout.folder.appending("outside").path(percentEncoded: false))
        try await store.delete("tree")

        #expect(try layout.folder.names(in: "root") == ["real"])
        #expect(try layout.folder.read("root/real/data.txt") == "kept")
        #expect(try layout.folder.read("outside/secret.txt") == "secret")
    }

    @Test func danglingLinkIsAMissingFile() async throws {
        let layout = try Layout()
        defer { layout.folder.remove() }
        let store = layout.store
        try layout.link("dangling", to: "nowhere")

        let error = await #expect(throws: RemoteStoreError.self) { _ = try await store.read("dangling") }

        #expect(error?.code == .notFound)
        #expect(try await store.exists("dangling") == nil)
        #expect(try await store.list(.root).isEmpty)
    }

    @Test func rootMayItselfBeALinkResolvedOnce() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.appending("real"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appending("alias").path(percentEncoded: false),
            withDestinationPath: "real"
        )

        let store = try FileRemoteStore(root: folder.appending("alias"))
        try await store.write(Data("x".utf8), to: "file")

        #expect(store.root.standardizedFileURL.path(percentEncoded: false).hasSuffix("/real/"))
        #expect(try folder.read("real/file") == "x")
    }
}
