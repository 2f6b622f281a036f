import Foundation

/// The part of an HTTP response a libcurl-based store looks at.
package struct HTTPResponse: Sendable {
    /// The final status code (after any `100 Continue` or authentication round-trip).
    package var status: Int
    /// Response headers of the final status block, names in lower case. A repeated header keeps its
    /// last value.
    package var headers: [String: String]
    /// The body, when the request's sink was memory or the status was not 2xx (capped).
    package var body: Data
    /// How many body bytes arrived in total (including those written to a file sink).
    package var receivedByteCount: Int64

    /// The `Content-Length` header as a number, if present and valid.
    package var contentLength: Int64? {
        headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// True for 2xx statuses.
    package var isSuccess: Bool { (200..<300).contains(status) }
}
