import RemoteProtocol

/// The check every versioned JSON file of the remote layout gets (`format.json`, the wrapped key
/// files), from its `format` and `version` fields, before anything else of it is trusted.
enum VersionedFile {
    /// Refuses a file of another format, or of a version newer than this build reads.
    /// - Throws: ``SyncError/Code/corruptRemoteData`` when `format` is not `expected` (the file is
    ///   not what RollingSync wrote), ``SyncError/Code/unsupportedFormat`` when `version` is newer
    ///   than `readable` (a newer RollingSync wrote it).
    static func check(_ path: RemotePath, format: String, expected: String, version: Int, readable: Int) throws {
        guard format == expected else {
            throw SyncError(.corruptRemoteData, "\(path) names the format '\(format)', not '\(expected)'")
        }
        guard version <= readable else {
            throw SyncError(
                .unsupportedFormat,
                "\(path) uses version \(version) of '\(expected)', but this build of RollingSync reads versions up to "
                    + "\(readable); update RollingSync"
            )
        }
    }
}
