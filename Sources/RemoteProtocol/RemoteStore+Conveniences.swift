import Foundation

extension RemoteStore {
    /// Stores `data` at `path`, replacing any existing file, with every guarantee of
    /// ``RemoteStore/upload(contentsOf:to:)``. Meant for small files (the data is held in memory).
    public func write(_ data: Data, to path: RemotePath) async throws {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        do {
            try data.write(to: scratch.url)
        } catch {
            throw RemoteStoreError(.localFile, path: path, message: "cannot write a local temporary file", underlying: error)
        }
        try await upload(contentsOf: scratch.url, to: path)
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
