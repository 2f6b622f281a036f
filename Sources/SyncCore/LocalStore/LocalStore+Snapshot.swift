import Foundation
import GRDB

extension LocalStore {
    /// Writes a consistent, compact copy of the whole database (application tables and RollingSync's
    /// own tables) to a new file, for whole-store upload, while the application keeps writing.
    ///
    /// Uses `VACUUM INTO` on a reading connection: the copy reflects exactly one committed state (no
    /// half transaction), has no WAL or journal beside it, and is written without blocking writers of
    /// a `DatabasePool` (a `DatabaseQueue` serializes it with its writes).
    /// - Parameter url: the destination; it must not exist yet.
    /// - Throws: a GRDB `DatabaseError` (e.g. when the destination exists) or a file error.
    public func snapshot(to url: URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path])
        }
        try writer.unsafeRead { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [url.path])
        }
    }
}
