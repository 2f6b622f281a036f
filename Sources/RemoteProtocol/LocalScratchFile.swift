import Foundation

/// A unique path in the system's temporary directory for one short-lived local file.
///
/// The file is not created; ``remove()`` deletes it if something was written there.
public struct LocalScratchFile: Sendable {
    /// The file's location.
    public let url: URL

    /// Reserves a fresh, unique name in the temporary directory.
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/localFile`` if the
    ///   temporary directory cannot be found.
    public init() throws {
        let directory = FileManager.default.temporaryDirectory
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw RemoteStoreError(.localFile, message: "the temporary directory \(directory.path) does not exist")
        }
        url = directory.appendingPathComponent("rollsync-\(UUID().uuidString)", isDirectory: false)
    }

    /// Deletes the file if it exists; errors are ignored (it is scratch space).
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
