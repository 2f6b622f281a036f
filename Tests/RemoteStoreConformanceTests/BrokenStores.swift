import Foundation
import InMemoryRemote
import RemoteProtocol
import Synchronization

/// Deliberately broken stores, each with one defect a real backend could have, for proving that
/// the contract suite catches it with the right check.
enum BrokenStores {
    /// `delete` throws `notFound` for a missing path instead of succeeding.
    struct DeleteFailsOnMissingPath: ForwardingStore {
        let base = InMemoryRemoteStore()
        func delete(_ path: RemotePath) async throws {
            guard try await base.exists(path) != nil else { throw RemoteStoreError(.notFound, path: path) }
            try await base.delete(path)
        }
    }

    /// `delete` refuses non-empty directories, like `rmdir`.
    struct DeleteIsNotRecursive: ForwardingStore {
        let base = InMemoryRemoteStore()
        func delete(_ path: RemotePath) async throws {
            if try await base.exists(path)?.kind == .directory, try await !base.list(path).isEmpty {
                throw RemoteStoreError(.io, path: path, message: "directory not empty")
            }
            try await base.delete(path)
        }
    }

    /// `delete` of the root empties the store.
    struct RootIsDeletable: ForwardingStore {
        let base = InMemoryRemoteStore()
        func delete(_ path: RemotePath) async throws {
            guard path.isRoot else { return try await base.delete(path) }
            for item in try await base.list(.root) {
                try await base.delete(item.path)
            }
        }
    }

    /// `upload` keeps an existing file instead of replacing it.
    struct UploadDoesNotOverwrite: ForwardingStore {
        let base = InMemoryRemoteStore()
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            if try await base.exists(path)?.kind == .file { return }
            try await base.upload(contentsOf: localFile, to: path)
        }
    }

    /// `upload` creates missing parent directories.
    struct UploadCreatesMissingDirectories: ForwardingStore {
        let base = InMemoryRemoteStore()
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            if let parent = path.parent, try await base.exists(parent) == nil {
                try await base.createDirectory(at: parent)
            }
            try await base.upload(contentsOf: localFile, to: path)
        }
    }

    /// `upload` reads the local file with Foundation and lets its error escape unmapped.
    struct LeaksFoundationErrors: ForwardingStore {
        let base = InMemoryRemoteStore()
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            let content = try Data(contentsOf: localFile)
            try await base.write(content, to: path)
        }
    }

    /// A cancelled upload leaves the first half of the new content behind.
    struct CancelledUploadLeavesHalfFile: ForwardingStore {
        let base = InMemoryRemoteStore()
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            guard Task.isCancelled else { return try await base.upload(contentsOf: localFile, to: path) }
            let content = try await Task { try await base.read(path) }.value
            let half = try Data(contentsOf: localFile).prefix(max(1, content.count / 2))
            try await Task { try await base.write(half, to: path) }.value
            throw CancellationError()
        }
    }

    /// `exists` throws `notFound` for a missing path.
    struct ExistsThrowsNotFound: ForwardingStore {
        let base = InMemoryRemoteStore()
        func exists(_ path: RemotePath) async throws -> RemoteItem? {
            guard let item = try await base.exists(path) else { throw RemoteStoreError(.notFound, path: path) }
            return item
        }
    }

    /// `exists` reports files without their size.
    struct ExistsOmitsSize: ForwardingStore {
        let base = InMemoryRemoteStore()
        func exists(_ path: RemotePath) async throws -> RemoteItem? {
            try await base.exists(path).map { RemoteItem(path: $0.path, kind: $0.kind, modificationDate: $0.modificationDate) }
        }
    }

    /// `createDirectory` throws `alreadyExists` for an existing directory.
    struct CreateDirectoryFailsIfPresent: ForwardingStore {
        let base = InMemoryRemoteStore()
        func createDirectory(at path: RemotePath) async throws {
            if !path.isRoot, try await base.exists(path) != nil { throw RemoteStoreError(.alreadyExists, path: path) }
            try await base.createDirectory(at: path)
        }
    }

    /// Every `notFound` comes out as `unknown`.
    struct NotFoundBecomesUnknown: ForwardingStore {
        let base = InMemoryRemoteStore()
        func download(_ path: RemotePath, to localFile: URL) async throws {
            try await mapped { try await base.download(path, to: localFile) }
        }
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            try await mapped { try await base.upload(contentsOf: localFile, to: path) }
        }
        func copy(_ source: RemotePath, to destination: RemotePath) async throws {
            try await mapped { try await base.copy(source, to: destination) }
        }
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            try await mapped { try await base.list(directory) }
        }
        private func mapped<Result>(_ body: () async throws -> Result) async throws -> Result {
            do {
                return try await body()
            } catch var error as RemoteStoreError where error.code == .notFound {
                error.code = .unknown
                throw error
            }
        }
    }

    /// `download` writes an empty local file for a directory instead of throwing.
    struct DownloadOfDirectoryWritesEmptyFile: ForwardingStore {
        let base = InMemoryRemoteStore()
        func download(_ path: RemotePath, to localFile: URL) async throws {
            guard try await base.exists(path)?.kind == .directory else { return try await base.download(path, to: localFile) }
            _ = FileManager.default.createFile(atPath: localFile.path, contents: Data())
        }
    }

    /// `download` creates the local file before asking the server, and leaves it when that fails.
    struct FailedDownloadLeavesEmptyFile: ForwardingStore {
        let base = InMemoryRemoteStore()
        func download(_ path: RemotePath, to localFile: URL) async throws {
            _ = FileManager.default.createFile(atPath: localFile.path, contents: Data())
            try await base.download(path, to: localFile)
        }
    }

    /// `downloadImmutableFile` skips the check that the whole body arrived and drops the last byte.
    struct ImmutableDownloadDropsLastByte: ForwardingStore {
        let base = InMemoryRemoteStore()
        func downloadImmutableFile(_ path: RemotePath, to localFile: URL) async throws {
            try await base.download(path, to: localFile)
            let content = try Data(contentsOf: localFile)
            try content.dropLast().write(to: localFile)
        }
    }

    /// `download` appends to an existing local file instead of replacing it.
    struct DownloadAppendsToLocalFile: ForwardingStore {
        let base = InMemoryRemoteStore()
        func download(_ path: RemotePath, to localFile: URL) async throws {
            let existing = (try? Data(contentsOf: localFile)) ?? Data()
            try await base.download(path, to: localFile)
            let downloaded = try Data(contentsOf: localFile)
            try (existing + downloaded).write(to: localFile)
        }
    }

    /// `list` leaves directories out.
    struct ListOmitsDirectories: ForwardingStore {
        let base = InMemoryRemoteStore()
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            try await base.list(directory).filter { $0.kind == .file }
        }
    }

    /// `list` includes the directory itself, as a `.` entry would come out once normalised.
    struct ListReturnsDotEntry: ForwardingStore {
        let base = InMemoryRemoteStore()
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            let dot = try RemotePath(components: directory.components + ["."])
            return try await base.list(directory) + [RemoteItem(path: dot, kind: .directory)]
        }
    }

    /// `temporaryFiles(in:)` returns the directory's ordinary files.
    struct TemporaryFilesListsOrdinaryFiles: ForwardingStore {
        let base = InMemoryRemoteStore()
        func temporaryFiles(in directory: RemotePath) async throws -> [TemporaryFile] {
            try await base.list(directory).map { TemporaryFile(directory: directory, name: $0.name, size: $0.size) }
        }
    }

    /// `list` returns the whole tree below the directory.
    struct ListIsRecursive: ForwardingStore {
        let base = InMemoryRemoteStore()
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            var items: [RemoteItem] = []
            for item in try await base.list(directory) {
                items.append(item)
                if item.isDirectory { items += try await list(item.path) }
            }
            return items
        }
    }

    /// `list` returns only the first page of 1,000 entries, as a backend that ignores the
    /// continuation token of S3 or a paged HTTP API does.
    struct ListReturnsOnlyTheFirstPage: ForwardingStore {
        let base = InMemoryRemoteStore()
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            Array(try await base.list(directory).sorted { $0.name < $1.name }.prefix(1_000))
        }
    }

    /// `list` leaves out names that start with a dot, as nginx's dav_ext does.
    struct ListHidesLeadingDotNames: ForwardingStore {
        let base = InMemoryRemoteStore()
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            try await base.list(directory).filter { !$0.name.hasPrefix(".") }
        }
    }

    /// `list` reports file sizes in a 20-bit field: right below 1 MiB, wrong from there on.
    struct ListTruncatesLargeSizes: ForwardingStore {
        let base = InMemoryRemoteStore()
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            try await base.list(directory).map { item in
                RemoteItem(path: item.path, kind: item.kind, size: item.size.map { $0 & 0xF_FFFF }, modificationDate: item.modificationDate)
            }
        }
    }

    /// `download` drops the last byte of a file whose size is a whole number of 64 KiB buffers
    /// (an off-by-one at the end of the last full buffer).
    struct DownloadDropsLastByteOfWholeBuffers: ForwardingStore {
        let base = InMemoryRemoteStore()
        func download(_ path: RemotePath, to localFile: URL) async throws {
            try await base.download(path, to: localFile)
            let content = try Data(contentsOf: localFile)
            if !content.isEmpty && content.count % 65_536 == 0 {
                try content.dropLast().write(to: localFile)
            }
        }
    }

    /// Names are folded to lower case on the way to the storage, as on a case-insensitive file
    /// system: `Case` and `case` are one file.
    struct CaseInsensitive: ForwardingStore {
        let base = InMemoryRemoteStore()
        func exists(_ path: RemotePath) async throws -> RemoteItem? { try await base.exists(try folded(path)) }
        func createDirectory(at path: RemotePath) async throws { try await base.createDirectory(at: try folded(path)) }
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            try await base.upload(contentsOf: localFile, to: try folded(path))
        }
        func download(_ path: RemotePath, to localFile: URL) async throws { try await base.download(try folded(path), to: localFile) }
        func copy(_ source: RemotePath, to destination: RemotePath) async throws {
            try await base.copy(try folded(source), to: try folded(destination))
        }
        func list(_ directory: RemotePath) async throws -> [RemoteItem] { try await base.list(try folded(directory)) }
        func delete(_ path: RemotePath) async throws { try await base.delete(try folded(path)) }
        private func folded(_ path: RemotePath) throws -> RemotePath {
            try RemotePath(components: path.components.map { $0.lowercased() })
        }
    }

    /// `list` and `exists` report no modification dates although the store declares a precision.
    struct DatesMissing: ForwardingStore {
        let base = InMemoryRemoteStore()
        func exists(_ path: RemotePath) async throws -> RemoteItem? {
            try await base.exists(path).map(Self.undated)
        }
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            try await base.list(directory).map(Self.undated)
        }
        private static func undated(_ item: RemoteItem) -> RemoteItem {
            RemoteItem(path: item.path, kind: item.kind, size: item.size)
        }
    }

    /// `copy` records an alias: the destination reads whatever the source holds now.
    final class CopyAliasesSource: ForwardingStore {
        let base = InMemoryRemoteStore()
        private let aliases = Mutex<[RemotePath: RemotePath]>([:])

        func copy(_ source: RemotePath, to destination: RemotePath) async throws {
            guard try await base.exists(source)?.kind == .file else { return try await base.copy(source, to: destination) }
            try await base.write(Data(), to: destination)
            let target = resolved(source)
            aliases.withLock { $0[destination] = target }
        }
        func download(_ path: RemotePath, to localFile: URL) async throws {
            try await base.download(resolved(path), to: localFile)
        }
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            aliases.withLock { $0[path] = nil }
            try await base.upload(contentsOf: localFile, to: path)
        }
        private func resolved(_ path: RemotePath) -> RemotePath {
            aliases.withLock { $0[path] } ?? path
        }
    }

    /// Names are changed on their way to the storage (percent-decoded, as a naive URL-based
    /// backend does, or cut short, as on a backend with a short name limit).
    struct MangledNames: ForwardingStore {
        let base = InMemoryRemoteStore()
        let mangle: @Sendable (String) -> String

        static var percentDecoding: MangledNames { MangledNames { $0.removingPercentEncoding ?? $0 } }
        static var truncatingTo100Characters: MangledNames { MangledNames { String($0.prefix(100)) } }

        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            try await base.upload(contentsOf: localFile, to: try mangled(path))
        }
        func createDirectory(at path: RemotePath) async throws {
            try await base.createDirectory(at: try mangled(path))
        }
        private func mangled(_ path: RemotePath) throws -> RemotePath {
            try RemotePath(components: path.components.map(mangle))
        }
    }

    /// `upload` and `copy` write the target in growing prefixes, so readers can see part of a
    /// file. After each prefix it waits (by yielding, a bounded number of times) until someone
    /// has looked at the store, which makes the defect visible deterministically.
    final class WritesInGrowingPrefixes: ForwardingStore {
        let base = InMemoryRemoteStore()
        private let looks = Atomic<Int>(0)

        func exists(_ path: RemotePath) async throws -> RemoteItem? {
            looks.add(1, ordering: .relaxed)
            return try await base.exists(path)
        }
        func download(_ path: RemotePath, to localFile: URL) async throws {
            looks.add(1, ordering: .relaxed)
            try await base.download(path, to: localFile)
        }
        func list(_ directory: RemotePath) async throws -> [RemoteItem] {
            looks.add(1, ordering: .relaxed)
            return try await base.list(directory)
        }
        func upload(contentsOf localFile: URL, to path: RemotePath) async throws {
            let content: Data
            do {
                content = try Data(contentsOf: localFile)
            } catch {
                throw RemoteStoreError(.localFile, path: path, underlying: error)
            }
            try await writeInPrefixes(content, to: path)
        }
        func copy(_ source: RemotePath, to destination: RemotePath) async throws {
            guard try await base.exists(source)?.kind == .file else { return try await base.copy(source, to: destination) }
            try await writeInPrefixes(try await base.read(source), to: destination)
        }
        private func writeInPrefixes(_ content: Data, to path: RemotePath) async throws {
            for quarter in 1...4 {
                try await base.write(content.prefix(content.count * quarter / 4), to: path)
                let seen = looks.load(ordering: .relaxed)
                var yields = 0
                while looks.load(ordering: .relaxed) == seen && yields < 10_000 {
                    await Task.yield()
                    yields += 1
                }
            }
        }
    }
}
