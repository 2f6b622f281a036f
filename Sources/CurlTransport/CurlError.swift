import CCurl
import Foundation

/// A libcurl failure, kept as the ``RemoteProtocol/RemoteStoreError/underlying`` error of the
/// libcurl-based stores' errors (WebDAV, S3): libcurl's numeric code and its explanation (never a credential).
public struct CurlError: Error, Sendable, CustomStringConvertible {
    /// libcurl's `CURLcode` value (for example 7 for "couldn't connect", 28 for a timeout).
    public let code: Int
    /// libcurl's text for the failure, with the details of its error buffer when there are any.
    public let message: String
    /// The kind of server the transfer went to (`WebDAV`, `S3`), so callers can name its settings.
    public let serverKind: String

    /// Describes `code`, with `detail` from libcurl's error buffer if it says more.
    package init(_ code: CURLcode, detail: String, serverKind: String) {
        self.code = Int(code.rawValue)
        self.serverKind = serverKind
        let summary = String(cString: curl_easy_strerror(code))
        message = detail.isEmpty || detail == summary ? summary : "\(summary): \(detail)"
    }

    public var description: String { "libcurl error \(code): \(message)" }
}

extension CurlError: LocalizedError {
    /// The same sentence as ``description``, so that `localizedDescription` (what apps and
    /// Foundation show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
