import Foundation
import RemoteProtocol

/// Downloads one change set of a document and checks it before anyone reads it: through the
/// codec (which verifies encrypted files), expanded when compressed, then verified as a complete
/// change set (checksum, count, clocks) whose header names the set its file name names.
///
/// Used by every reader of change sets: the sync, `verify --deep`, `log` and point-in-time
/// restore, so all of them refuse exactly the same files for the same reasons.
struct ChangeSetFetcher: Sendable {
    let remote: CodedRemote
    let layout: DocumentLayout

    /// Why a set cannot be read. Remote failures (unreachable, refused) are thrown as they are;
    /// this says only that the file itself is unusable.
    struct Unreadable: Error, Sendable, CustomStringConvertible {
        /// One line, naming what is wrong (damaged, truncated, misnamed, missing…).
        var reason: String
        var description: String { reason }
    }

    /// Downloads `name` of `client` into `file` (which it overwrites) and verifies it.
    /// - Returns: what verifying it found, so an apply needs no second verification pass.
    /// - Throws: ``Unreadable`` if the file is damaged, truncated, not a change set, named
    ///   differently from its content, or gone; ``SyncError`` for remote failures.
    func fetch(_ name: ChangeSetName, of client: SyncIdentifier, to file: URL) async throws -> ChangeSetReader.VerifiedContents {
        do {
            try await remote.download(layout.changeSet(name, of: client), to: file, immutable: true)
        } catch let error as SyncError where error.code == .corruptRemoteData {
            throw Unreadable(reason: error.message)
        } catch let error as SyncError where (error.underlying as? RemoteStoreError)?.code == .notFound {
            throw Unreadable(reason: "the file disappeared before it could be downloaded")
        }
        let contents = try await BlockingWork.run {
            do {
                try ChangeSetCompression.expandIfCompressed(file)
            } catch let damaged as ChangeSetCompression.Failure {
                throw Unreadable(reason: damaged.description)
            }
            do {
                return try ChangeSetReader.verifiedContents(ofFileAt: file)
            } catch {
                throw Unreadable(reason: "it is not a valid change set: \(error)")
            }
        }
        guard contents.summary.header.setID == name.id else {
            throw Unreadable(reason: "its content names the set '\(contents.summary.header.setID)', not '\(name.id)'")
        }
        return contents
    }

    /// Downloads and verifies `name` of `client` into a scratch file, runs `body` with it and
    /// removes the file, whatever happens.
    func withFetched<Result>(
        _ name: ChangeSetName, of client: SyncIdentifier,
        _ body: (URL, ChangeSetReader.VerifiedContents) async throws -> Result
    ) async throws -> Result {
        let scratch = try LocalScratchFile()
        defer { scratch.remove() }
        let contents = try await fetch(name, of: client, to: scratch.url)
        return try await body(scratch.url, contents)
    }
}
