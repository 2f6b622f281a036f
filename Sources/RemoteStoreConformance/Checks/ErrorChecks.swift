import Foundation
import RemoteProtocol

extension ConformanceContext {
    /// Provokes every failure the contract names, plus cancelled transfers, and inspects only
    /// the type of what is thrown (the codes have their own checks).
    func onlyRemoteStoreErrorsEscape() async throws {
        let file = path("file")
        let folder = path("directory")
        let missing = path("missing")
        let large = path("large.bin")
        try await write(Self.randomData(10), to: file)
        try await createDirectory(folder)
        try await write(Self.randomData(options.largeFileSize), to: large)
        try await withLocalFile { local in
            try await writeLocal(Self.randomData(options.largeFileSize), to: local)
            let missingLocal = missingLocalDirectoryFile()
            let provocations: [(String, RemotePath, @Sendable () async throws -> Void)] = [
                ("download of a missing file", missing, { try await store.download(missing, to: local) }),
                ("download of a directory", folder, { try await store.download(folder, to: local) }),
                ("download into a missing local directory", file, { try await store.download(file, to: missingLocal) }),
                ("upload of a missing local file", file, { try await store.upload(contentsOf: missingLocal, to: file) }),
                ("upload into a missing directory", missing / "file", { try await store.upload(contentsOf: local, to: missing / "file") }),
                ("upload below a file", file / "child", { try await store.upload(contentsOf: local, to: file / "child") }),
                ("upload onto a directory", folder, { try await store.upload(contentsOf: local, to: folder) }),
                ("copy of a missing file", missing, { try await store.copy(missing, to: path("copy")) }),
                ("copy into a missing directory", missing / "copy", { try await store.copy(file, to: missing / "copy") }),
                ("copy of a directory", folder, { try await store.copy(folder, to: path("copy")) }),
                ("list of a missing directory", missing, { _ = try await store.list(missing) }),
                ("list of a file", file, { _ = try await store.list(file) }),
                ("createDirectory over a file", file, { try await store.createDirectory(at: file) }),
                ("createDirectory below a file", file / "child", { try await store.createDirectory(at: file / "child") }),
                ("delete of the root", .root, { try await store.delete(.root) }),
            ]
            for (operation, target, body) in provocations {
                do {
                    try await body()
                } catch is RemoteStoreError {
                    continue
                } catch let error as CancellationError where Task.isCancelled {
                    throw error
                } catch {
                    throw failure(
                        target, expected: "\(operation) throws a RemoteStoreError",
                        actual: "it threw \(Self.describe(error))", underlying: error
                    )
                }
            }
            let cancelled: [(String, RemotePath, @Sendable () async throws -> Void)] = [
                ("cancelled upload", path("upload"), { try await store.upload(contentsOf: local, to: path("upload")) }),
                ("cancelled download", large, { try await store.download(large, to: local) }),
                ("cancelled list", directory, { _ = try await store.list(directory) }),
                ("cancelled exists", large, { _ = try await store.exists(large) }),
            ]
            for (operation, target, body) in cancelled {
                for yields in Self.cancellationPoints {
                    if case .failure(let error) = await resultOfCancelledTask(afterYields: yields, body),
                        !(error is RemoteStoreError || error is CancellationError)
                    {
                        throw failure(
                            target, expected: "a \(operation) throws a RemoteStoreError or CancellationError",
                            actual: "it threw \(Self.describe(error))", underlying: error
                        )
                    }
                }
            }
        }
    }
}
