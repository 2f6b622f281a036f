/// Why an encrypted remote file could not be decrypted. Nothing of such a file is ever used.
///
/// The description names the problem only: never a key, a password or file content.
package struct EncryptedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the file.
    package enum Kind: Sendable, Equatable {
        /// The file does not start with the encrypted-file header (it was written unencrypted or
        /// replaced by something else).
        case notEncrypted
        /// The header names a format version this build does not read.
        case unsupportedVersion(Int)
        /// The header is malformed (an unsupported chunk size, for example).
        case malformedHeader
        /// The file ends before its final chunk.
        case truncated
        /// A chunk fails authentication: the file was changed, cut at a chunk boundary, reordered,
        /// or moved from another remote path. `chunk` counts from 0.
        case authenticationFailed(chunk: UInt64)
        /// The file was encrypted with another data key than this client's (identifiers shown):
        /// the application's remote data was probably created again with a new key.
        case encryptedWithAnotherKey(fileKeyID: String, clientKeyID: String)
    }

    /// What is wrong.
    package let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    package var description: String {
        switch kind {
        case .notEncrypted:
            "the file is not encrypted although the application's data is"
        case .unsupportedVersion(let version):
            "the file uses encryption format version \(version), which this build of RollingSync cannot read"
        case .malformedHeader:
            "the file's encryption header is malformed"
        case .truncated:
            "the file is truncated"
        case .authenticationFailed(let chunk):
            "the file failed authentication at chunk \(chunk): it was modified, truncated, or moved from another place"
        case .encryptedWithAnotherKey(let fileKeyID, let clientKeyID):
            "the file was encrypted with data key \(fileKeyID), but this client holds data key \(clientKeyID); "
                + "register again with the application's password"
        }
    }
}
