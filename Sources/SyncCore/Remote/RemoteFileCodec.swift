import Foundation
import RemoteProtocol

/// The one seam every remote file passes through: encode before upload, decode (and verify)
/// after download.
///
/// A codec may compress and encrypt. It receives the file's remote path so it can bind the content
/// to its place (an encrypting codec uses the path as associated data, so a file moved or swapped
/// on the server fails to decode). Decoding must verify before it produces anything: a tampered or
/// truncated file throws, and the caller applies nothing from it.
package protocol RemoteFileCodec: Sendable {
    /// True if encoding leaves files unchanged, so callers can upload and download directly.
    var isIdentity: Bool { get }

    /// Writes the stored form of the local file `plaintext`, destined for `path`, to `encoded`.
    func encode(_ plaintext: URL, into encoded: URL, for path: RemotePath) throws

    /// Verifies the stored form `encoded`, downloaded from `path`, and writes its content to
    /// `plaintext`. Throws without writing `plaintext` if verification fails.
    func decode(_ encoded: URL, into plaintext: URL, for path: RemotePath) throws
}

/// The codec of unencrypted applications: files are stored as they are.
package struct PlaintextCodec: RemoteFileCodec {
    /// Creates the codec.
    package init() {}

    package var isIdentity: Bool { true }

    package func encode(_ plaintext: URL, into encoded: URL, for path: RemotePath) throws {
        try FileManager.default.copyItem(at: plaintext, to: encoded)
    }

    package func decode(_ encoded: URL, into plaintext: URL, for path: RemotePath) throws {
        try FileManager.default.copyItem(at: encoded, to: plaintext)
    }
}
