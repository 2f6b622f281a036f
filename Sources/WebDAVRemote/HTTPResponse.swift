import Foundation

/// The part of an HTTP response the WebDAV store looks at.
struct HTTPResponse: Sendable {
    /// The final status code (after any `100 Continue` or authentication round-trip).
    var status: Int
    /// Response headers of the final status block, names in lower case. A repeated header keeps its
    /// last value.
    var headers: [String: String]
    /// The body, when the request's sink was memory or the status was not 2xx (capped).
    var body: Data
    /// How many body bytes arrived in total (including those written to a file sink).
    var receivedByteCount: Int64

    /// The `Content-Length` header as a number, if present and valid.
    var contentLength: Int64? {
        headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// True for 2xx statuses.
    var isSuccess: Bool { (200..<300).contains(status) }
}
