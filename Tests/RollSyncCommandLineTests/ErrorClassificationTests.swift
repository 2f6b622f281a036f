import Foundation
import GRDB
import RemoteProtocol
@testable import RollSyncCommandLine
import SyncCore
import TestSupport
import Testing

/// Exit codes by the question "would a retry help?", and hints that name the settings of the
/// backend an error came from (its ``RemoteStoreError/backend``, never where it was made).
struct ErrorClassificationTests {
    private static let sftp = "sftp"
    private static let webDAV = "webdav"

    private func classify(_ error: any Error) throws -> CommandLineError {
        try #require(CommandLineError(classifying: error))
    }

    @Test(arguments: [RemoteStoreError.Code.unavailable, .timedOut, .rateLimited])
    func connectionFailuresAreRemoteErrorsToRunAgain(_ code: RemoteStoreError.Code) throws {
        for backend in [Self.sftp, Self.webDAV, "file", nil] {
            let direct = try classify(RemoteStoreError(code, message: "dropped", backend: backend))
            #expect(direct.kind == .remote && direct.kind.exitCode == 2)
            let wrapped = try classify(SyncError(.remote, "remote storage failed", underlying: RemoteStoreError(code, backend: backend)))
            #expect(wrapped.kind == .remote)
            #expect(wrapped.hint != nil)
        }
    }

    @Test func sftpHintsNameOnlySFTPSettings() throws {
        let refused = try classify(RemoteStoreError(.authenticationFailed, message: "the SSH server refused user 'root'", backend: Self.sftp))
        #expect(refused.kind == .authentication && refused.kind.exitCode == 3)
        let hint = try #require(refused.hint)
        #expect(hint.contains("--identity-file") && hint.contains("ROLLSYNC_SFTP_PASSPHRASE") && hint.contains("ROLLSYNC_SFTP_PASSWORD"))
        #expect(!hint.contains("WEBDAV") && !hint.contains("netrc"))

        let dropped = try classify(RemoteStoreError(.unavailable, message: "closed during the login", backend: Self.sftp))
        #expect(dropped.kind == .remote)
        #expect(dropped.hint?.contains("sshd") == true && dropped.hint?.contains("WebDAV") == false)

        let unknownHost = try classify(RemoteStoreError(.hostKeyUnknown, backend: Self.sftp))
        #expect(unknownHost.kind == .authentication)
        #expect(unknownHost.hint?.contains("--trust-on-first-use") == true)
    }

    @Test func webDAVHintsNameOnlyWebDAVSettings() throws {
        let refused = try classify(RemoteStoreError(.authenticationFailed, message: "PROPFIND answered HTTP 401", backend: Self.webDAV))
        #expect(refused.kind == .authentication)
        let hint = try #require(refused.hint)
        #expect(hint.contains("ROLLSYNC_WEBDAV_PASSWORD") && hint.contains("--webdav-password-env") && hint.contains(".netrc"))
        #expect(!hint.contains("SFTP") && !hint.contains("identity-file"))

        let forbidden = try classify(RemoteStoreError(.permissionDenied, message: "PUT answered HTTP 403", backend: Self.webDAV))
        #expect(forbidden.kind == .authentication)
        #expect(forbidden.hint?.contains("--user") == true)

        let dropped = try classify(RemoteStoreError(.unavailable, backend: Self.webDAV))
        #expect(dropped.hint?.contains("WebDAV server") == true && dropped.hint?.contains("sshd") == false)

        let untrusted = try classify(RemoteStoreError(.hostKeyUnknown, backend: Self.webDAV))
        #expect(untrusted.kind == .authentication)
        #expect(untrusted.hint?.contains("certificate") == true && untrusted.hint?.contains("--trust-on-first-use") == false)
    }

    @Test func s3HintsNameOnlyS3Settings() throws {
        let refused = try classify(SyncError(.remote, "remote storage failed", underlying: RemoteStoreError(.authenticationFailed, backend: "s3")))
        #expect(refused.kind == .authentication)
        let hint = try #require(refused.hint)
        #expect(hint.contains("AWS_ACCESS_KEY_ID") && !hint.contains("WEBDAV") && !hint.contains("identity-file"))
    }

    /// A URL carrying a secret is refused before anything is opened, with the hint of the URL's
    /// own backend (it used to name the WebDAV password for every scheme).
    @Test(arguments: [
        ("s3://AKIAEXAMPLE:secret@bucket/notes", "AWS_ACCESS_KEY_ID", "WEBDAV"),
        ("sftp://anna:secret@host/sync", "ROLLSYNC_SFTP_PASSWORD", "WEBDAV"),
        ("webdavs://anna:secret@host/dav", "ROLLSYNC_WEBDAV_PASSWORD", "SFTP"),
    ])
    func aURLWithASecretGetsItsOwnBackendsHint(url: String, named: String, notNamed: String) throws {
        let refusal = try #require(throws: CommandLineError.self) { try RemoteLocation.parse(url, settings: [:], relativeTo: "/") }
        #expect(refusal.kind == .usage)
        #expect(!refusal.message.contains("secret"))
        let hint = try #require(refusal.hint)
        #expect(hint.contains(named) && !hint.contains(notNamed), "\(hint)")
    }

    @Test func otherFailuresAreNotRetriedAsConnectionFailures() throws {
        let malformed = try classify(RemoteStoreError(.invalidResponse, backend: Self.webDAV))
        #expect(malformed.kind == .remote && malformed.hint == nil)
        let busy = try classify(SyncError(.busy, "local changes kept arriving"))
        #expect(busy.kind == .remote && busy.hint != nil)
    }

    /// A schema that uses an application's own collation or function (SQLite's own error, and a
    /// whole store refused for it) names what is missing and says where it can be synced.
    @Test func missingDefinitionsNameWhatIsMissing() throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.url.appendingPathComponent("app.sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(collation: DatabaseCollation("app") { $0 < $1 ? .orderedAscending : $0 > $1 ? .orderedDescending : .orderedSame }) }
        let app = try DatabaseQueue(path: path, configuration: configuration)
        try app.write { db in try db.execute(sql: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT); CREATE INDEX by_title ON notes (title COLLATE app)") }
        try app.close()
        let plain = try DatabaseQueue(path: path)
        let sqliteError = try #require(throws: DatabaseError.self) { try plain.write { db in try db.execute(sql: "INSERT INTO notes VALUES ('a', 'b')") } }
        let direct = try classify(sqliteError)
        #expect(direct.kind == .localDatabase)
        #expect(direct.message.contains("collation app"))
        #expect(direct.hint?.contains("library") == true)
        let missing = try #require(throws: MissingDefinitionError.self) {
            try MissingDefinitionError.translating { try plain.write { db in try db.execute(sql: "INSERT INTO notes VALUES ('a', 'b')") } }
        }
        let refusedStore = try classify(SyncError(.local, "whole store u of c cannot be checked here", underlying: missing))
        #expect(refusedStore.kind == .localDatabase && refusedStore.hint == direct.hint)
        let failedRestore = try classify(SyncError(.local, "the restored database could not be written", underlying: sqliteError))
        #expect(failedRestore.hint == direct.hint)
    }

    /// Apps show `localizedDescription`: every public error type answers with its own sentence,
    /// never "The operation could not be completed".
    @Test func localizedDescriptionsAreTheErrorsOwnSentences() throws {
        let scratch = try TemporaryDirectory()
        let database = scratch.url.appendingPathComponent("refused.sqlite")
        let queue = try DatabaseQueue(path: database.path)
        try queue.write { try $0.execute(sql: "CREATE VIEW counters AS SELECT 1 AS n") }
        let store = try LocalStore(writer: queue)
        let localStoreError = try #require(throws: LocalStoreError.self) { try store.register(table: "counters") }
        let errors: [any Error & CustomStringConvertible] = [
            RemoteStoreError(.notFound, path: "a/b", message: "'a/b' does not exist"),
            SyncError(.noWholeStore, "document notebook has no usable whole store"),
            localStoreError,
            CommandLineError(.usage, "name the tables to sync with --table"),
        ]
        for error in errors {
            #expect(error.localizedDescription == error.description)
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
        #expect(localStoreError.localizedDescription.contains("counters") && localStoreError.localizedDescription.contains("it is a view"))
    }
}
