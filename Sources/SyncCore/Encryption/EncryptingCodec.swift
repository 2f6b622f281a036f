import CryptoPrimitives
import Foundation
import RemoteProtocol

/// The codec of encrypted applications: every file is encrypted with the application's data key in
/// chunks of AES-256-GCM, bound to its remote path (see ``EncryptedFileFormat`` and
/// Docs/RemoteFormat.md, "Encryption").
///
/// Both directions stream: memory use is a few chunks (64 KiB each), whatever the file size.
/// ``decode(_:into:for:)`` writes the plaintext beside its destination under a temporary name and
/// moves it into place only once the last chunk has been authenticated, so a tampered, truncated or
/// swapped file leaves nothing behind.
struct EncryptingCodec: RemoteFileCodec {
    let dataKey: DataKey

    var isIdentity: Bool { false }

    func encode(_ plaintext: URL, into encoded: URL, for path: RemotePath) throws {
        let header = EncryptedFileFormat.Header(keyID: dataKey.id)
        let fileKey = EncryptedFileFormat.fileKey(for: header, dataKey: dataKey)
        let associatedData = EncryptedFileFormat.associatedData(header: header, path: path)
        let input = try FileHandle(forReadingFrom: plaintext)
        defer { try? input.close() }
        let output = try Self.createFile(encoded)
        defer { try? output.close() }
        try output.write(contentsOf: header.bytes)
        var chunks = ChunkReader(input, chunkByteCount: header.chunkSize)
        var index: UInt64 = 0
        while let (chunk, isFinal) = try chunks.next() {
            let sealed = try AES256GCM.seal(
                chunk,
                key: fileKey,
                nonce: EncryptedFileFormat.nonce(chunk: index, isFinal: isFinal),
                authenticating: associatedData
            )
            try output.write(contentsOf: sealed.ciphertext)
            try output.write(contentsOf: sealed.tag)
            index += 1
        }
    }

    func decode(_ encoded: URL, into plaintext: URL, for path: RemotePath) throws {
        do {
            try decrypt(encoded, into: plaintext, for: path)
        } catch let error as EncryptedFileError {
            throw SyncError(.corruptRemoteData, "the remote file \(path) cannot be used: \(error)", underlying: error)
        }
    }

    private func decrypt(_ encoded: URL, into plaintext: URL, for path: RemotePath) throws {
        let input = try FileHandle(forReadingFrom: encoded)
        defer { try? input.close() }
        let header = try EncryptedFileFormat.Header(parsing: try input.read(upToCount: EncryptedFileFormat.headerByteCount) ?? Data())
        guard header.keyID == dataKey.id else {
            throw EncryptedFileError(.encryptedWithAnotherKey(fileKeyID: header.keyID.hex, clientKeyID: dataKey.id.hex))
        }
        let fileKey = EncryptedFileFormat.fileKey(for: header, dataKey: dataKey)
        let associatedData = EncryptedFileFormat.associatedData(header: header, path: path)
        let partial = plaintext.deletingLastPathComponent().appendingPathComponent(".\(plaintext.lastPathComponent).\(UUID().uuidString).partial")
        let output = try Self.createFile(partial)
        var moved = false
        defer {
            try? output.close()
            if !moved {
                try? FileManager.default.removeItem(at: partial)
            }
        }
        var chunks = ChunkReader(input, chunkByteCount: header.chunkSize + EncryptedFileFormat.tagByteCount)
        var index: UInt64 = 0
        var sawFinal = false
        while let (chunk, isFinal) = try chunks.next() {
            guard chunk.count >= EncryptedFileFormat.tagByteCount else {
                throw EncryptedFileError(.truncated)
            }
            let tagStart = chunk.endIndex - EncryptedFileFormat.tagByteCount
            let opened: [UInt8]
            do {
                opened = try AES256GCM.open(
                    chunk[chunk.startIndex..<tagStart],
                    tag: chunk[tagStart...],
                    key: fileKey,
                    nonce: EncryptedFileFormat.nonce(chunk: index, isFinal: isFinal),
                    authenticating: associatedData
                )
            } catch {
                throw EncryptedFileError(.authenticationFailed(chunk: index))
            }
            try output.write(contentsOf: opened)
            sawFinal = isFinal
            index += 1
        }
        guard sawFinal else {
            throw EncryptedFileError(.truncated)
        }
        try output.close()
        try? FileManager.default.removeItem(at: plaintext)
        try FileManager.default.moveItem(at: partial, to: plaintext)
        moved = true
    }

    /// Creates (or empties) a file and opens it for writing.
    private static func createFile(_ url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        return try FileHandle(forWritingTo: url)
    }
}
