import RemoteProtocol

/// One upload, download or copy in progress: an open source and a ``StagedFile`` that becomes
/// visible under ``finalName`` when the bytes are all there.
struct FileTransfer: Sendable {
    /// The file read from, open.
    let source: FileDescriptor
    /// Where read failures are reported: the local file of an upload, the remote file otherwise.
    let sourceContext: FailureContext
    /// The temporary destination file.
    let destination: StagedFile
    /// The name the destination takes in its directory once complete.
    let finalName: String
    /// Whether the destination may only be created, never replace anything (``StagedFile/commit(as:exclusively:)``).
    var exclusive = false

    /// Copies the bytes in chunks of ``FileIOThreads/chunkByteCount`` on `threads`, checking for
    /// cancellation before every chunk, then commits the destination.
    ///
    /// On any failure or cancellation the temporary file is removed and the destination's
    /// previous state (old file or no file) is left untouched.
    func run(on threads: FileIOThreads) async throws {
        do {
            var hasMore = true
            while hasMore {
                try Task.checkCancellation()
                hasMore = try await threads.run { buffer in
                    try destination.appendChunk(from: source, reportingAs: sourceContext, using: buffer)
                }
            }
            try Task.checkCancellation()
            try await threads.run { _ in try destination.commit(as: finalName, exclusively: exclusive) }
        } catch {
            _ = try? await threads.run { _ in destination.discard() }
            throw error
        }
    }
}
