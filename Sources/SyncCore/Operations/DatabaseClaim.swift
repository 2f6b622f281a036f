import Foundation
import GRDB
import Synchronization

/// One ``DocumentSyncManager``'s claim on its database: while it holds it, no other manager of
/// this process may sync the same database (two would run their syncs side by side instead of one
/// after the other).
///
/// A database file is named by its path with symbolic links resolved, so every `DatabaseQueue` or
/// `DatabasePool` opened on one file makes the same claim; an in-memory database is its writer
/// object. Other processes are not seen (the `rollsync` tool takes a lock file for that). The
/// claim ends at ``release()`` or when it is deallocated with its manager.
final class DatabaseClaim: Sendable {
    /// The databases claimed in this process.
    private static let claimed = Mutex<Set<String>>([])

    private let database: String
    private let released = Mutex(false)

    /// Claims `writer`'s database.
    /// - Throws: ``SyncError/Code/alreadyOpen`` if another manager holds it.
    init(_ writer: any DatabaseWriter) throws {
        database = Self.name(of: writer)
        let name = database
        guard Self.claimed.withLock({ $0.insert(name).inserted }) else {
            released.withLock { $0 = true }   // the claim is another manager's: deinit must leave it
            throw SyncError(
                .alreadyOpen,
                "another DocumentSyncManager of this process already syncs the database \(writer.path); "
                    + "keep one manager per database, or close() it before opening another"
            )
        }
    }

    deinit {
        release()
    }

    /// Ends the claim; idempotent.
    func release() {
        guard released.withLock({ released in defer { released = true }; return !released }) else { return }
        let name = database
        _ = Self.claimed.withLock { $0.remove(name) }
    }

    /// The database's name for claims: its file's resolved path, or the writer object of an
    /// in-memory database.
    private static func name(of writer: any DatabaseWriter) -> String {
        let path = writer.path
        if path.isEmpty || path == ":memory:" || path.hasPrefix("file::memory:") {
            return "memory \(ObjectIdentifier(writer))"
        }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
