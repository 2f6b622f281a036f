import Foundation
import RemoteProtocol
@testable import SyncCore

// The parsers of files SyncCore downloads from the remote, called as the sync calls them.

extension FuzzTarget {
    /// A change set as the apply reads it: the verification pass, then the decoding pass that
    /// builds every value.
    static let changeSet = FuzzTarget(name: "change-set") { input in
        Scratch.withFile(holding: input) { file in
            expecting([ChangeSetFormatError.self], in: "change-set") {
                _ = try ChangeSetReader.verify(fileAt: file)
                let reader = try ChangeSetReader(contentsOf: file)
                while try reader.next() != nil {}
            }
        }
    }

    /// A downloaded change set as the fetcher treats it: expanded if compressed (in place, within
    /// the size its header announces), then verified.
    static let compressedChangeSet = FuzzTarget(name: "compressed-change-set") { input in
        Scratch.withFile(holding: input) { file in
            expecting([ChangeSetCompression.Failure.self, SyncError.self, ChangeSetFormatError.self], in: "compressed-change-set") {
                try ChangeSetCompression.expandIfCompressed(file)
                _ = try ChangeSetReader.verify(fileAt: file)
            }
        }
    }

    /// An encrypted remote file decoded with the application's data key (``fuzzingDataKey``; the
    /// seeds are encrypted with it, so mutations reach the chunks behind the header).
    static let encryptedFile = FuzzTarget(name: "encrypted-file") { input in
        _ = try? EncryptedFileFormat.Header(parsing: input.prefix(EncryptedFileFormat.headerByteCount))
        return Scratch.withFile(holding: input) { file in
            expecting([SyncError.self], in: "encrypted-file") {
                let output = file.deletingLastPathComponent().appendingPathComponent("plaintext")
                try EncryptingCodec(dataKey: fuzzingDataKey).decode(file, into: output, for: fuzzingPath)
            }
        }
    }

    /// A whole store's compressed snapshot as the downloader expands it (zstd, within the size
    /// its manifest announces; here 1 MiB).
    static let wholeStoreSnapshot = FuzzTarget(name: "whole-store-snapshot") { input in
        Scratch.withFile(holding: input) { file in
            expecting([CompressionFailure.self], in: "whole-store-snapshot") {
                let output = file.deletingLastPathComponent().appendingPathComponent("expanded")
                try WholeStoreCompression.zstd.decompress(file, to: output, limit: 1 << 20) { _ in }
            }
        }
    }

    /// A whole store's `manifest.json`.
    static let wholeStoreManifest = FuzzTarget(name: "whole-store-manifest") { input in
        expecting([SyncError.self], in: "whole-store-manifest") {
            _ = try CodedRemote.decodeJSON(WholeStoreManifest.self, from: input, at: fuzzingPath)
        }
    }

    /// A whole store's `appliedSets.json`.
    static let wholeStoreIndex = FuzzTarget(name: "whole-store-index") { input in
        expecting([SyncError.self], in: "whole-store-index") {
            _ = try CodedRemote.decodeJSON(WholeStoreIndex.self, from: input, at: fuzzingPath)
        }
    }

    /// A wrapped key file (`Encryption/DataKey-….json`) and the local key cache. The key is never
    /// unwrapped here: that is scrypt, whose cost the decoded parameters bound.
    static let keyFile = FuzzTarget(name: "key-file") { input in
        let text = String(decoding: input, as: UTF8.self)
        _ = WrappedKeyName(fileName: text)
        _ = DataKeyID(hex: text)
        let cache = DataKeyFileStore(directory: Scratch.directory)
        let applicationID = fuzzingApplicationID
        _ = Scratch.withFile(holding: input) { file in
            try? FileManager.default.moveItem(at: file, to: cache.file(for: applicationID))
            return cache.load(applicationID: applicationID)
        }
        return expecting([SyncError.self], in: "key-file") {
            _ = try VersionedFile.decode(
                WrappedDataKey.self, from: input, at: fuzzingPath, expected: WrappedDataKey.formatName, readable: WrappedDataKey.currentVersion
            )
        }
    }

    /// An application's `format.json`.
    static let formatFile = FuzzTarget(name: "format-json") { input in
        expecting([SyncError.self], in: "format-json") {
            _ = try VersionedFile.decode(
                RemoteFormatFile.self, from: input, at: fuzzingPath, expected: RemoteFormatFile.formatName,
                readable: RemoteFormatFile.currentVersion
            )
        }
    }
}

/// The data key the encrypted seeds are made with (fixed, so seeds and runs agree).
let fuzzingDataKey = DataKey(
    id: DataKeyID(bytes: (0..<UInt8(DataKeyID.byteCount)).map { $0 })!, bytes: [UInt8](repeating: 0x5A, count: DataKey.byteCount)
)!

/// The remote path the files are read from (the encryption binds it).
let fuzzingPath: RemotePath = "SyncChanges/client/fuzz"

/// The application the key cache is read for.
let fuzzingApplicationID = try! SyncIdentifier("fuzz-application")
