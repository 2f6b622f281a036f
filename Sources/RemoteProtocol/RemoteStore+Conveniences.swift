import Foundation

extension RemoteStore {
    /// Stores `data` at `path`, replacing any existing file, with every guarantee of
    /// ``RemoteStore/upload(contentsOf:to:)``. Meant for small files (the data is held in memory).
    public func write(_ data: Data, to path: RemotePath) async throws {
        try await withScratchFile(holding: data, for: path) { try await upload(contentsOf: $0, to: path) }
    }

    /// Stores `data` at `path` only if nothing stands there, with every guarantee of
    /// ``RemoteStore/createExclusively(contentsOf:at:)``. Meant for small files.
    public func createExclusively(_ data: Data, at path: RemotePath) async throws {
        try await withScratchFile(holding: data, for: path) { try await createExclusively(contentsOf: $0, at: path) }
    }

    private func withScratchFile(holding data: Data, for path: RemotePath, _ body: (URL) async throws -> Void) async throws {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        do {
            try data.write(to: scratch.url)
        } catch {
            throw RemoteStoreError(.localFile, path: path, message: "cannot write a local temporary file", underlying: error)
        }
        try await body(scratch.url)
    }

    /// Returns the content of the file at `path`, with every guarantee of
    /// ``RemoteStore/download(_:to:)``. Meant for small files (the data is held in memory).
    public func read(_ path: RemotePath) async throws -> Data {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        try await download(path, to: scratch.url)
        do {
            return try Data(contentsOf: scratch.url)
        } catch {
            throw RemoteStoreError(.localFile, path: path, message: "cannot read a local temporary file", underlying: error)
        }
    }

    /// Copies `source` to `destination` by downloading and re-uploading it: the fallback for
    /// backends without ``RemoteCapabilities/serverSideCopy``. Same errors as ``RemoteStore/copy(_:to:)``.
    public func copyThroughClient(_ source: RemotePath, to destination: RemotePath) async throws {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        try await download(source, to: scratch.url)
        try await upload(contentsOf: scratch.url, to: destination)
    }
}
