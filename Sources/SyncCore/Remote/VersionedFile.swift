import Foundation
import RemoteProtocol

/// How every versioned JSON file of the remote layout is read (`format.json`, the wrapped key
/// files): its `format` and `version` fields are checked first, before the rest is decoded, so a
/// file a newer RollingSync wrote with other fields is refused as newer, not as damaged.
enum VersionedFile {
    /// Decodes `data`, the content of `path`, as `type` once its format is `expected` and its
    /// version at most `readable`.
    /// - Throws: ``SyncError/Code/corruptRemoteData`` when the file is not JSON with those two
    ///   fields, names another format (it is not what RollingSync wrote), or does not decode as
    ///   `type`; ``SyncError/Code/unsupportedFormat`` when its version is newer than `readable`
    ///   (a newer RollingSync wrote it).
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, at path: RemotePath, expected: String, readable: Int) throws -> Value {
        let probe = try CodedRemote.decodeJSON(Probe.self, from: data, at: path)
        guard probe.format == expected else {
            throw SyncError(.corruptRemoteData, "\(path) names the format '\(probe.format)', not '\(expected)'")
        }
        guard probe.version <= readable else {
            throw SyncError(
                .unsupportedFormat,
                "\(path) uses version \(probe.version) of '\(expected)', but this build of RollingSync reads versions up to "
                    + "\(readable); update RollingSync"
            )
        }
        return try CodedRemote.decodeJSON(type, from: data, at: path)
    }

    /// The two fields every version of every versioned file keeps.
    private struct Probe: Decodable {
        var format: String
        var version: Int
    }
}
